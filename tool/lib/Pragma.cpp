//===- Pragma.cpp - Parsing the clauses of `#pragma mpiad` ----------------===//
#include "Pragma.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Lex/Preprocessor.h"
#include <cstdlib>

using namespace clang;

namespace mpiad {

namespace {

class ClauseParser {
public:
  ClauseParser(Preprocessor &PP, Token &tok) : PP(PP), tok(tok) {}

  void next() { PP.Lex(tok); }
  bool atEnd() const { return tok.is(tok::eod); }
  std::string spell() const { return PP.getSpelling(tok); }
  bool isWord() const {
    return tok.getIdentifierInfo() != nullptr; // identifiers and keywords
  }

  bool error(SourceLocation loc, const std::string &msg) {
    unsigned id = PP.getDiagnostics().getCustomDiagID(DiagnosticsEngine::Error,
                                                      "%0");
    PP.Diag(loc, id) << msg;
    failed = true;
    // Skip the rest of the pragma line.
    while (!atEnd())
      next();
    return false;
  }

  bool expect(tok::TokenKind k, const char *what) {
    if (tok.isNot(k))
      return error(tok.getLocation(),
                   std::string("expected ") + what + " in '#pragma mpiad'");
    next();
    return true;
  }

  /// ( name [ '[' tokens ']' ] , ... )
  /// A length `w[LEN]`: an integer expression of names, integer constants,
  /// + - * / % << >> and parentheses, up to the closing ']'.  Its text goes
  /// into a generated allocation, so nothing else is accepted.
  bool lengthExpr(std::string &len,
                  std::vector<std::pair<std::string, SourceLocation>> &names) {
    SourceLocation start = tok.getLocation();
    int depth = 0;
    bool operand = true; // an operand is expected next
    bool field = false;  // a field name is expected next (after -> or .)
    bool afterName = false;
    while (!atEnd() && !(tok.is(tok::r_square) && depth == 0)) {
      SourceLocation at = tok.getLocation();
      if (field && tok.is(tok::identifier)) {
        field = false; // s->boxes->nTotalBoxes: a field of the name before
      } else if (field) {
        return error(at, "expected a field name in the length, found '" +
                             spell() + "'");
      } else if (!operand && afterName &&
                 tok.isOneOf(tok::arrow, tok::period)) {
        field = true;
      } else if (operand && tok.is(tok::identifier)) {
        names.push_back({spell(), at});
        operand = false;
      } else if (operand && tok.is(tok::numeric_constant)) {
        std::string c = spell();
        if (c.find_first_of(".eEpP") != std::string::npos &&
            c.rfind("0x", 0) != 0 && c.rfind("0X", 0) != 0)
          return error(at, "the length of a replicated array is an integer; "
                           "'" + c + "' is not");
        operand = false;
      } else if (operand && (tok.is(tok::plus) || tok.is(tok::minus))) {
        // unary sign
      } else if (operand && tok.is(tok::l_paren)) {
        ++depth;
      } else if (!operand && tok.is(tok::r_paren) && depth > 0) {
        --depth;
      } else if (!operand &&
                 (tok.isOneOf(tok::plus, tok::minus, tok::star, tok::slash,
                              tok::percent) ||
                  tok.isOneOf(tok::lessless, tok::greatergreater))) {
        operand = true;
      } else {
        return error(at, "expected an integer expression over the function's "
                         "parameters as the length in replicated(NAME[...]), "
                         "found '" + spell() + "'");
      }
      afterName = tok.is(tok::identifier);
      if (!len.empty() && tok.hasLeadingSpace())
        len += " ";
      len += spell();
      next();
    }
    if (len.empty())
      return error(tok.getLocation(), "expected a length expression");
    if (operand || field || depth != 0)
      return error(atEnd() ? start : tok.getLocation(),
                   "incomplete length expression '" + len +
                       "' in replicated(NAME[...])");
    return true;
  }

  bool nameList(std::vector<std::pair<std::string, SourceLocation>> &out,
                std::map<std::string, std::string> *lens, bool allowReturn,
                std::map<std::string,
                         std::vector<std::pair<std::string, SourceLocation>>>
                    *lenNames = nullptr,
                std::vector<ClausePath> *paths = nullptr, bool wrt = false) {
    if (!expect(tok::l_paren, "'('"))
      return false;
    if (tok.is(tok::r_paren))
      return error(tok.getLocation(), "empty clause list");
    while (true) {
      bool isReturn = tok.is(tok::kw_return);
      if (!(tok.is(tok::identifier) || (allowReturn && isReturn)))
        return error(tok.getLocation(),
                     allowReturn ? "expected a parameter name or 'return'"
                                 : "expected a parameter name");
      std::string name = spell();
      SourceLocation at = tok.getLocation();
      next();
      // A path through struct fields: s->atoms->r, s.e.
      std::string path;
      while (paths && (tok.is(tok::arrow) || tok.is(tok::period))) {
        std::string sep = spell();
        path += sep;
        next();
        if (!tok.is(tok::identifier))
          return error(tok.getLocation(),
                       "expected a field name after '" + sep + "'");
        path += spell();
        next();
      }
      // Every entry of a clause that takes paths is recorded (an empty
      // path names the whole variable).
      if (paths)
        paths->push_back({name, path, at, wrt, "", {}});
      if (paths && !path.empty() && tok.is(tok::l_square)) {
        next();
        if (!lengthExpr(paths->back().len, paths->back().lenNames))
          return false;
        if (!expect(tok::r_square, "']'"))
          return false;
      }
      // A struct named through paths is listed once (its shadow).
      bool pathsOfName = false;
      for (size_t k = 0; paths && k + 1 < paths->size(); ++k)
        pathsOfName |= (*paths)[k].root == name && !(*paths)[k].path.empty();
      bool seen = false;
      for (const auto &o : out)
        seen |= o.first == name && (!path.empty() || pathsOfName);
      if (!seen)
        out.push_back({name, at});
      if (lens && tok.is(tok::l_square)) {
        next();
        std::string len;
        std::vector<std::pair<std::string, SourceLocation>> names;
        if (!lengthExpr(len, names))
          return false;
        if (!expect(tok::r_square, "']'"))
          return false;
        (*lens)[name] = len;
        if (lenNames)
          (*lenNames)[name] = names;
      }
      if (tok.is(tok::comma)) {
        next();
        continue;
      }
      return expect(tok::r_paren, "',' or ')'");
    }
  }

  Preprocessor &PP;
  Token &tok;
  bool failed = false;
};

} // namespace

void MpiadPragmaHandler::HandlePragma(Preprocessor &PP,
                                      PragmaIntroducer intro, Token &first) {
  PragmaRecord rec;
  rec.loc = intro.Loc;
  rec.startLoc = first.getLocation();
  Token tok;
  PP.Lex(tok);
  ClauseParser p(PP, tok);
  if (p.atEnd() || !p.isWord()) {
    p.error(p.atEnd() ? first.getLocation() : tok.getLocation(),
            "expected 'differentiate', 'parallel', 'checkpoint' or "
            "'inactive' after '#pragma mpiad'");
    return;
  }
  std::string kind = p.spell();
  SourceLocation kindLoc = tok.getLocation();
  p.next();
  if (kind == "parallel") {
    rec.kind = PragmaRecord::Parallel;
  } else if (kind == "checkpoint") {
    rec.kind = PragmaRecord::Checkpoint;
    // Optional (snapshots = K): K a positive integer or a name (a macro or
    // a variable in scope at the loop).
    if (tok.is(tok::l_paren)) {
      p.next();
      if (!p.isWord() || p.spell() != "snapshots") {
        p.error(tok.getLocation(), "expected 'snapshots' in "
                                   "'#pragma mpiad checkpoint(snapshots=K)'");
        return;
      }
      p.next();
      if (!p.expect(tok::equal, "'='"))
        return;
      if (tok.is(tok::numeric_constant)) {
        std::string k = p.spell();
        char *end = nullptr;
        long v = std::strtol(k.c_str(), &end, 10);
        if (*end != '\0' || v < 1 || v > 100000) {
          p.error(tok.getLocation(), "the number of snapshots must be an "
                                     "integer from 1 to 100000");
          return;
        }
        rec.snapshots = k;
      } else if (tok.is(tok::identifier)) {
        rec.snapshots = p.spell();
      } else {
        p.error(tok.getLocation(), "expected a number of snapshots");
        return;
      }
      p.next();
      if (!p.expect(tok::r_paren, "')'"))
        return;
    }
  } else if (kind == "inactive") {
    rec.kind = PragmaRecord::Inactive;
    if (!p.nameList(rec.names, nullptr, false))
      return;
  } else if (kind == "differentiate") {
    rec.kind = PragmaRecord::Differentiate;
    rec.ann.loc = intro.Loc;
    std::set<std::string> seen;
    while (!p.atEnd()) {
      if (!p.isWord()) {
        p.error(tok.getLocation(), "expected a clause name");
        return;
      }
      std::string clause = p.spell();
      SourceLocation clauseLoc = tok.getLocation();
      if (clause != "reverse" && clause != "forward" && seen.count(clause)) {
        p.error(clauseLoc, "clause '" + clause + "' given twice");
        return;
      }
      seen.insert(clause);
      p.next();
      if (clause == "reverse") {
        rec.ann.reverse = true;
      } else if (clause == "forward") {
        rec.ann.reverse = false;
      } else if (clause == "wrt") {
        if (!p.nameList(rec.ann.wrt, nullptr, false, nullptr, &rec.ann.paths,
                        true))
          return;
      } else if (clause == "output") {
        if (!p.nameList(rec.ann.outputs, nullptr, true, nullptr,
                        &rec.ann.paths, false))
          return;
      } else if (clause == "replicated") {
        if (!p.nameList(rec.ann.replicated, &rec.ann.replicatedLen, false,
                        &rec.ann.replicatedLenNames))
          return;
      } else if (clause == "scratch") {
        if (!p.nameList(rec.ann.scratch, &rec.ann.scratchLen, false,
                        &rec.ann.scratchLenNames))
          return;
      } else if (clause == "varying") {
        if (!p.nameList(rec.ann.varying, nullptr, false))
          return;
      } else if (clause == "replicas") {
        if (!p.nameList(rec.ann.replicas, &rec.ann.replicasLen, false,
                        &rec.ann.replicasLenNames))
          return;
      } else if (clause == "name" || clause == "semantics") {
        if (!p.expect(tok::l_paren, "'('"))
          return;
        if (tok.isNot(tok::identifier)) {
          p.error(tok.getLocation(), clause == "name"
                                         ? "expected an identifier"
                                         : "expected 'global' or 'per_rank'");
          return;
        }
        std::string v = p.spell();
        if (clause == "name") {
          rec.ann.name = v;
        } else if (v == "global" || v == "per_rank") {
          rec.ann.perRank = v == "per_rank";
        } else {
          p.error(tok.getLocation(), "unknown semantics '" + v +
                                         "'; expected 'global' or 'per_rank'");
          return;
        }
        p.next();
        if (!p.expect(tok::r_paren, "')'"))
          return;
      } else {
        p.error(clauseLoc, "unknown clause '" + clause +
                               "' in '#pragma mpiad differentiate' (expected "
                               "wrt, output, replicated, varying, scratch, replicas, name, "
                               "semantics, reverse or forward)");
        return;
      }
    }
    if (rec.ann.wrt.empty()) {
      p.error(kindLoc, "'#pragma mpiad differentiate' needs a wrt(...) clause");
      return;
    }
  } else {
    p.error(kindLoc, "unknown '#pragma mpiad " + kind +
                         "'; expected differentiate, parallel, checkpoint or "
                         "inactive");
    return;
  }
  if (!p.atEnd()) {
    p.error(tok.getLocation(), "unexpected '" + p.spell() + "' in '#pragma mpiad'");
    return;
  }
  records_.push_back(rec);
}

} // namespace mpiad
