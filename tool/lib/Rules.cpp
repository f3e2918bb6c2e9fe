//===- Rules.cpp - Reading rule files -------------------------------------===//
#include "Rules.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace mpiad {

namespace {

/// A recursive-descent parser for the small expression language of rules:
/// numbers, identifiers, calls, unary minus, * / + -, comparisons, ?:.
class ExprParser {
public:
  explicit ExprParser(const std::string &s) : s_(s) {}

  ExprP parse() {
    ExprP e = ternary();
    skip();
    if (!failed() && pos_ != s_.size())
      fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return failed() ? nullptr : e;
  }
  bool failed() const { return !error.empty(); }
  std::string error;
  size_t errorCol = 0;

private:
  const std::string &s_;
  size_t pos_ = 0;

  void fail(const std::string &m) {
    if (error.empty()) {
      error = m;
      errorCol = pos_;
    }
  }
  void skip() {
    while (pos_ < s_.size() && isspace((unsigned char)s_[pos_]))
      ++pos_;
  }
  bool eat(const std::string &t) {
    skip();
    if (s_.compare(pos_, t.size(), t) == 0) {
      pos_ += t.size();
      return true;
    }
    return false;
  }
  ExprP ternary() {
    ExprP c = binary(0);
    if (!c)
      return nullptr;
    if (eat("?")) {
      ExprP a = ternary();
      if (!eat(":")) {
        fail("expected ':'");
        return nullptr;
      }
      ExprP b = ternary();
      if (!a || !b)
        return nullptr;
      return mkCond(c, a, b);
    }
    return c;
  }
  // Precedence levels, loosest first.
  ExprP binary(int level) {
    static const std::vector<std::vector<std::string>> levels = {
        {"||"}, {"&&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"+", "-"},
        {"*", "/"}};
    if (level == (int)levels.size())
      return unary();
    ExprP lhs = binary(level + 1);
    while (lhs) {
      std::string op;
      for (const std::string &cand : levels[level])
        if (eat(cand)) {
          op = cand;
          break;
        }
      if (op.empty())
        break;
      ExprP rhs = binary(level + 1);
      if (!rhs)
        return nullptr;
      lhs = mkBinary(op, lhs, rhs);
    }
    return lhs;
  }
  ExprP unary() {
    if (eat("-")) {
      ExprP a = unary();
      return a ? mkUnary("-", a) : nullptr;
    }
    return primary();
  }
  ExprP primary() {
    skip();
    if (pos_ >= s_.size()) {
      fail("unexpected end of expression");
      return nullptr;
    }
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      ExprP e = ternary();
      if (!eat(")")) {
        fail("expected ')'");
        return nullptr;
      }
      return e;
    }
    if (isdigit((unsigned char)c) || c == '.') {
      size_t b = pos_;
      bool isFloat = false;
      while (pos_ < s_.size() &&
             (isalnum((unsigned char)s_[pos_]) || s_[pos_] == '.')) {
        isFloat |= s_[pos_] == '.' || s_[pos_] == 'e';
        ++pos_;
      }
      std::string t = s_.substr(b, pos_ - b);
      return isFloat ? mkFloat(t) : mkIntText(t);
    }
    if (isalpha((unsigned char)c) || c == '_') {
      size_t b = pos_;
      while (pos_ < s_.size() &&
             (isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_'))
        ++pos_;
      std::string id = s_.substr(b, pos_ - b);
      if (eat("(")) {
        std::vector<ExprP> args;
        if (!eat(")")) {
          do {
            ExprP a = ternary();
            if (!a)
              return nullptr;
            args.push_back(a);
          } while (eat(","));
          if (!eat(")")) {
            fail("expected ')' after arguments");
            return nullptr;
          }
        }
        return mkCall(id, args);
      }
      // A placeholder: substituted by the actual argument (or kept verbatim
      // for constants such as M_PI).
      return mkOpaque(id, {}, Scalar::Double);
    }
    fail("unexpected '" + std::string(1, c) + "'");
    return nullptr;
  }
};

/// A library constant a rule may name: MPI_DOUBLE, MPI_IN_PLACE, ncclSum...
bool isConstantName(const std::string &w) {
  return w.rfind("MPI_", 0) == 0 || w.rfind("nccl", 0) == 0;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

void report(const std::string &file, int line, size_t col,
            const std::string &msg) {
  fprintf(stderr, "%s:%d:%zu: error: %s\n", file.c_str(), line, col + 1,
          msg.c_str());
}

std::vector<std::string> splitTop(const std::string &text, char sep);

/// Splits `name(a, b, c)` into name and argument names.
bool parseSignature(const std::string &text, std::string &name,
                    std::vector<std::string> &params, std::string &err) {
  size_t lp = text.find('('), rp = text.rfind(')');
  if (lp == std::string::npos || rp == std::string::npos || rp < lp) {
    err = "expected NAME(PARAM, ...)";
    return false;
  }
  name = trim(text.substr(0, lp));
  for (const std::string &p : splitTop(text.substr(lp + 1, rp - lp - 1), ','))
    if (!trim(p).empty())
      params.push_back(trim(p));
  if (name.empty()) {
    err = "missing name before '('";
    return false;
  }
  return true;
}

/// Splits at top-level separators (outside parentheses).
std::vector<std::string> splitTop(const std::string &text, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '(')
      ++depth;
    if (c == ')')
      --depth;
    if (c == sep && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

/// Parses `[if A == V && B != W:] op(a, b); op2(c)`.
bool parseStep(const std::string &text, CommStep &out, std::string &err) {
  static const std::set<std::string> builtins = {
      "allreduce", "allreduce_if_partial", "accumulate", "zero"};
  std::string body = text;
  std::string t = trim(text);
  if (t.rfind("if ", 0) == 0) {
    size_t colon = t.find(':');
    if (colon == std::string::npos) {
      err = "expected ':' after the condition";
      return false;
    }
    std::string cond = t.substr(3, colon - 3);
    body = t.substr(colon + 1);
    size_t b = 0;
    while (true) {
      size_t e = cond.find("&&", b);
      std::string g = trim(cond.substr(b, e == std::string::npos ? e : e - b));
      Guard gd;
      size_t op = g.find("==");
      gd.equal = op != std::string::npos;
      if (!gd.equal)
        op = g.find("!=");
      if (op == std::string::npos) {
        err = "expected 'ARG == VALUE' or 'ARG != VALUE' in the condition";
        return false;
      }
      gd.arg = trim(g.substr(0, op));
      gd.value = trim(g.substr(op + 2));
      out.guards.push_back(gd);
      if (e == std::string::npos)
        break;
      b = e + 2;
    }
  }
  for (std::string one : splitTop(body, ';')) {
    one = trim(one);
    if (one.empty())
      continue;
    CommAction a;
    if (!parseSignature(one, a.op, a.args, err))
      return false;
    a.builtin = builtins.count(a.op) > 0;
    out.actions.push_back(a);
  }
  if (out.actions.empty()) {
    err = "expected at least one action";
    return false;
  }
  return true;
}

} // namespace

ExprP RuleSet::parseExpr(const std::string &text, std::string &error,
                         size_t &errorCol) {
  ExprParser p(text);
  ExprP e = p.parse();
  error = p.error;
  errorCol = p.errorCol;
  return e;
}

bool RuleSet::loadDir(const std::string &dir) {
  DIR *d = opendir(dir.c_str());
  if (!d) {
    fprintf(stderr, "mpiad-cc: error: cannot open rules directory '%s'\n",
            dir.c_str());
    return false;
  }
  std::vector<std::string> files;
  while (dirent *ent = readdir(d)) {
    std::string n = ent->d_name;
    if (n.size() > 6 && n.substr(n.size() - 6) == ".rules")
      files.push_back(dir + "/" + n);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  bool ok = true;
  for (const std::string &f : files)
    ok &= loadFile(f);
  return ok;
}

bool RuleSet::loadFile(const std::string &path) {
  std::ifstream in(path);
  if (!in) {
    fprintf(stderr, "mpiad-cc: error: cannot open rules file '%s'\n",
            path.c_str());
    return false;
  }
  std::string line;
  int lineNo = 0;
  CommRule *open = nullptr;
  int openLine = 0;
  bool ok = true;
  while (std::getline(in, line)) {
    ++lineNo;
    std::string t = trim(line);
    size_t indent = line.find_first_not_of(" \t");
    if (t.empty() || t[0] == '#')
      continue;
    std::string kw = t.substr(0, t.find_first_of(" \t("));
    std::string rest = trim(t.substr(kw.size()));
    size_t restCol = line.find(rest, indent + kw.size());
    std::string where = path + ":" + std::to_string(lineNo);

    if (kw == "inactive") {
      // inactive NAME: calls of NAME only read what they are given.
      bool ident = !rest.empty() && (std::isalpha((unsigned char)rest[0]) ||
                                     rest[0] == '_');
      for (char c : rest)
        ident &= std::isalnum((unsigned char)c) || c == '_';
      if (!ident) {
        report(path, lineNo, restCol,
               "expected the name of a function after 'inactive'");
        ok = false;
        continue;
      }
      inactive_.insert(rest);
      continue;
    }
    if (kw == "math") {
      // math NAME(p, ...)  dp = EXPR ; dq = EXPR
      size_t rp = rest.find(')');
      MathRule r;
      std::string err;
      if (rp == std::string::npos ||
          !parseSignature(rest.substr(0, rp + 1), r.name, r.params, err)) {
        report(path, lineNo, restCol, err.empty() ? "expected ')'" : err);
        ok = false;
        continue;
      }
      r.derivs.assign(r.params.size(), nullptr);
      r.where = where;
      std::string ds = rest.substr(rp + 1);
      size_t dsCol = restCol + rp + 1;
      std::stringstream ss(ds);
      std::string clause;
      size_t off = 0;
      bool bad = false;
      while (std::getline(ss, clause, ';')) {
        size_t clauseCol = dsCol + off;
        off += clause.size() + 1;
        if (trim(clause).empty())
          continue;
        size_t eq = clause.find('=');
        std::string lhs = trim(clause.substr(0, eq == std::string::npos ? 0 : eq));
        auto it = std::find(r.params.begin(), r.params.end(),
                            lhs.size() > 1 ? lhs.substr(1) : "");
        if (eq == std::string::npos || lhs.empty() || lhs[0] != 'd' ||
            it == r.params.end()) {
          report(path, lineNo, clauseCol + clause.find_first_not_of(' '),
                 "expected 'dPARAM = EXPR' naming a parameter of " + r.name);
          bad = true;
          break;
        }
        std::string err2;
        size_t col = 0;
        ExprP e = parseExpr(clause.substr(eq + 1), err2, col);
        if (!e) {
          report(path, lineNo, clauseCol + eq + 1 + col, err2);
          bad = true;
          break;
        }
        r.derivs[it - r.params.begin()] = isZeroLiteral(e) ? nullptr : e;
      }
      if (bad) {
        ok = false;
        continue;
      }
      math_[r.name] = r;
      continue;
    }
    if (kw == "comm") {
      if (open) {
        report(path, lineNo, indent, "'comm' inside the rule opened at line " +
                                         std::to_string(openLine) +
                                         " (missing 'end')");
        ok = false;
      }
      CommRule r;
      std::vector<std::string> params;
      std::string err;
      if (!parseSignature(rest, r.name, params, err)) {
        report(path, lineNo, restCol, err);
        ok = false;
        open = nullptr;
        continue;
      }
      for (const std::string &p : params) {
        CommArg a;
        a.name = p;
        r.args.push_back(a);
      }
      r.where = where;
      comm_[r.name] = r;
      open = &comm_[r.name];
      openLine = lineNo;
      continue;
    }
    if (kw == "end") {
      if (!open) {
        report(path, lineNo, indent, "'end' without 'comm'");
        ok = false;
      }
      open = nullptr;
      continue;
    }
    if (!open) {
      report(path, lineNo, indent,
             "unknown rule keyword '" + kw + "' (expected 'math', 'comm' or 'inactive')");
      ok = false;
      continue;
    }
    // Clauses inside a comm rule.
    std::stringstream ws(rest);
    std::vector<std::string> words;
    std::string w;
    while (ws >> w)
      words.push_back(w);
    auto needArg = [&](const std::string &n) -> CommArg * {
      int i = open->argIndex(n);
      if (i < 0) {
        report(path, lineNo, line.find(n, indent + kw.size()),
               "'" + n + "' is not a parameter of " + open->name);
        ok = false;
        return nullptr;
      }
      return &open->args[i];
    };
    if (kw == "buffer") {
      // buffer NAME read|write|readwrite COUNT DATATYPE [exact]
      if (words.size() != 4 && !(words.size() == 5 && words[4] == "exact")) {
        report(path, lineNo, restCol,
               "expected 'buffer NAME read|write|readwrite COUNT DATATYPE "
               "[exact]'");
        ok = false;
        continue;
      }
      auto constant = [](const std::string &w) {
        return isdigit((unsigned char)w[0]) || isConstantName(w);
      };
      CommArg *a = needArg(words[0]);
      if (!a || (!constant(words[2]) && !needArg(words[2])) ||
          (!constant(words[3]) && !needArg(words[3])))
        continue;
      a->role = CommArg::Buffer;
      a->read = words[1] == "read" || words[1] == "readwrite";
      a->write = words[1] == "write" || words[1] == "readwrite";
      if (!a->read && !a->write) {
        report(path, lineNo, line.find(words[1], restCol),
               "expected read, write or readwrite");
        ok = false;
      }
      a->count = words[2];
      a->datatype = words[3];
      a->exactCount = words.size() == 5;
    } else if (kw == "intout" && words.size() == 2) {
      // `intout ARG COUNT`: an int array output of COUNT elements.
      CommArg *a = needArg(words[0]);
      if (a && (isdigit((unsigned char)words[1][0]) || needArg(words[1]))) {
        a->role = CommArg::IntOut;
        a->write = true;
        a->count = words[1];
      }
    } else if (kw == "extent") {
      // `extent BUF EXPR`: the elements the call writes into BUF, as a C
      // expression in the rule's arguments, `MPI_` constants and calls.
      if (words.size() < 2) {
        report(path, lineNo, restCol, "expected 'extent BUFFER EXPR'");
        ok = false;
        continue;
      }
      CommArg *a = needArg(words[0]);
      if (!a)
        continue;
      if (a->role != CommArg::Buffer || !a->write) {
        report(path, lineNo, restCol,
               "'" + words[0] + "' is not a buffer the call writes (give its "
               "'buffer' clause first)");
        ok = false;
        continue;
      }
      size_t at = rest.find(words[0]) + words[0].size();
      std::string err;
      size_t col = 0;
      ExprP e = parseExpr(rest.substr(at), err, col);
      if (!e) {
        report(path, lineNo, restCol + at + col, err);
        ok = false;
        continue;
      }
      // Every name must be an argument of the rule or an MPI_ constant:
      // anything else would be pasted into the generated code unresolved.
      std::string unknown;
      std::function<void(const ExprP &)> check = [&](const ExprP &x) {
        if (x->kind == Expr::Opaque && x->ops.empty() &&
            open->argIndex(x->text) < 0 && !isConstantName(x->text) &&
            unknown.empty())
          unknown = x->text;
        for (const ExprP &o : x->ops)
          check(o);
      };
      check(e);
      if (!unknown.empty()) {
        report(path, lineNo, line.find(unknown, indent + kw.size()),
               "'" + unknown + "' is not a parameter of " + open->name);
        ok = false;
        continue;
      }
      a->extent = e;
    } else if (kw == "perrank") {
      // `perrank ARG size|sources|destinations [root ROOT]`
      bool shape = words.size() == 2 || (words.size() == 4 && words[2] == "root");
      if (!shape || (words[1] != "size" && words[1] != "sources" &&
                     words[1] != "destinations")) {
        report(path, lineNo, restCol,
               "expected 'perrank NAME size|sources|destinations [root "
               "ROOT]'");
        ok = false;
        continue;
      }
      CommArg *a = needArg(words[0]);
      if (!a || (words.size() == 4 && !needArg(words[3])))
        continue;
      a->perRank = words[1];
      a->perRankRoot = words.size() == 4 ? words[3] : "";
    } else if (kw == "status") {
      // `status ARG [COUNT]`: ARG points to one MPI_Status (COUNT of them)
      // that the call fills.  The program may read it after the call, so it
      // is a written value like an intout (recorded when the reverse sweep
      // needs its old contents).
      if (words.empty() || words.size() > 2) {
        report(path, lineNo, restCol, "expected 'status NAME [COUNT]'");
        ok = false;
        continue;
      }
      CommArg *a = needArg(words[0]);
      if (a && (words.size() == 1 || isdigit((unsigned char)words[1][0]) ||
                needArg(words[1]))) {
        a->role = CommArg::Status;
        a->write = true;
        a->count = words.size() == 2 ? words[1] : "";
      }
    } else if (kw == "count" || kw == "datatype" || kw == "communicator" ||
               kw == "intout") {
      if (words.size() != 1) {
        report(path, lineNo, restCol, "expected '" + kw + " NAME'");
        ok = false;
        continue;
      }
      if (CommArg *a = needArg(words[0])) {
        a->role = kw == "count"      ? CommArg::Count
                  : kw == "datatype" ? CommArg::Datatype
                  : kw == "communicator" ? CommArg::Comm
                                     : CommArg::IntOut;
        a->write = kw == "intout";
      }
    } else if (kw == "op") {
      if (words.size() < 2) {
        report(path, lineNo, restCol, "expected 'op NAME OPERATOR...'");
        ok = false;
        continue;
      }
      if (CommArg *a = needArg(words[0])) {
        a->role = CommArg::Op;
        open->allowedOps[words[0]] =
            std::vector<std::string>(words.begin() + 1, words.end());
      }
    } else if (kw == "result") {
      if (words.size() != 2 ||
          (words[1] != "replicated" && words[1] != "varying")) {
        report(path, lineNo, restCol,
               "expected 'result NAME replicated|varying'");
        ok = false;
        continue;
      }
      if (needArg(words[0]))
        open->resultReplication[words[0]] = words[1];
    } else if (kw == "global" || kw == "per_rank" || kw == "forward" ||
               kw == "tangent") {
      CommStep step;
      std::string err;
      if (!parseStep(rest, step, err)) {
        report(path, lineNo, restCol, err);
        ok = false;
        continue;
      }
      for (const Guard &g : step.guards)
        needArg(g.arg);
      for (const CommAction &a : step.actions) {
        if ((kw == "forward" || kw == "tangent") && a.builtin) {
          report(path, lineNo, line.find(a.op, restCol),
                 "'" + a.op + "' is an adjoint action; 'forward' takes a call");
          ok = false;
        }
        for (const std::string &n : a.args) {
          // adj(B) / partial(B) name a buffer; plain names a parameter;
          // numbers, NULL and MPI_ constants are passed as written.
          std::string inner = n;
          for (const char *w : {"adj(", "partial(", "tan("})
            if (n.rfind(w, 0) == 0 && n.back() == ')')
              inner = n.substr(strlen(w), n.size() - strlen(w) - 1);
          bool constant = isdigit((unsigned char)inner[0]) || inner == "NULL" ||
                          isConstantName(inner);
          if (inner != n || !constant) {
            CommArg *ca = needArg(inner);
            if (ca && inner != n && ca->role != CommArg::Buffer) {
              report(path, lineNo, line.find(n, restCol),
                     "'" + inner + "' is not a buffer of " + open->name);
              ok = false;
            }
          }
        }
      }
      (kw == "global"     ? open->global
       : kw == "per_rank" ? open->perRank
       : kw == "tangent"  ? open->tangent
                          : open->forward)
          .push_back(step);
    } else if (kw == "inplace") {
      if (words.size() != 2) {
        report(path, lineNo, restCol, "expected 'inplace SENDARG BUFFER'");
        ok = false;
        continue;
      }
      if (needArg(words[0]) && needArg(words[1]))
        open->inPlace[words[0]] = words[1];
    } else if (kw == "pointtopoint") {
      open->pointToPoint = true;
    } else if (kw == "groupstart" || kw == "groupend" || kw == "ingroup") {
      (kw == "groupstart" ? open->groupStart
       : kw == "groupend" ? open->groupEnd
                          : open->inGroup) = true;
    } else if (kw == "starts" || kw == "completes") {
      (kw == "starts" ? open->starts : open->completes) = true;
    } else if (kw == "answer") {
      if (words.size() != 1) {
        report(path, lineNo, restCol, "expected 'answer ARG'");
        ok = false;
        continue;
      }
      if (needArg(words[0]))
        open->answers.push_back(words[0]);
    } else if (kw == "joins") {
      if (words.size() != 2) {
        report(path, lineNo, restCol, "expected 'joins NEWCOMM ID'");
        ok = false;
        continue;
      }
      if (needArg(words[0]) && needArg(words[1])) {
        open->joinsComm = words[0];
        open->joinsId = words[1];
      }
    } else if (kw == "derived") {
      if (words.size() != 1) {
        report(path, lineNo, restCol, "expected 'derived DATATYPE'");
        ok = false;
        continue;
      }
      if (needArg(words[0]))
        open->derived.insert(words[0]);
    } else if (kw == "creates" || kw == "releases") {
      if (words.size() != 1) {
        report(path, lineNo, restCol, "expected '" + kw + " ARG'");
        ok = false;
        continue;
      }
      if (needArg(words[0]))
        (kw == "creates" ? open->creates : open->releases) = words[0];
    } else {
      report(path, lineNo, indent, "unknown clause '" + kw + "' in rule " +
                                       open->name);
      ok = false;
    }
  }
  if (open) {
    report(path, openLine, 0, "rule " + open->name + " has no 'end'");
    ok = false;
  }
  return ok;
}

} // namespace mpiad
