//===- Backend.cpp - IR to C text -----------------------------------------===//
#include "Backend.h"

#include <functional>

#include <map>

#include <cctype>

namespace mpiad {

namespace {

int precedence(const ExprP &e) {
  switch (e->kind) {
  case Expr::IntLit:
  case Expr::FloatLit:
    return e->text[0] == '-' ? 15 : 16;
  case Expr::VarRef:
  case Expr::Index:
  case Expr::Call:
    return 16;
  case Expr::Unary:
  case Expr::Cast:
  case Expr::AddrOf:
    return 15;
  case Expr::Binary: {
    const std::string &o = e->text;
    if (o == "*" || o == "/" || o == "%")
      return 13;
    if (o == "+" || o == "-")
      return 12;
    if (o == "<<" || o == ">>")
      return 11;
    if (o == "<" || o == "<=" || o == ">" || o == ">=")
      return 10;
    if (o == "==" || o == "!=")
      return 9;
    if (o == "&")
      return 8;
    if (o == "^")
      return 7;
    if (o == "|")
      return 6;
    if (o == "&&")
      return 5;
    return 4; // ||
  }
  case Expr::Cond:
    return 3;
  case Expr::Opaque: {
    if (e->ops.size() == 1)
      return 16; // a member access: base.field, base->field
    for (char c : e->text)
      if (!(isalnum((unsigned char)c) || c == '_' || c == '.'))
        return e->text.rfind("sizeof", 0) == 0 ? 15 : 0;
    return 16;
  }
  }
  return 0;
}

std::string wrap(const ExprP &e, int minPrec) {
  std::string s = printExpr(e);
  return precedence(e) < minPrec ? "(" + s + ")" : s;
}

std::string pad(int n) { return std::string(2 * n, ' '); }

/// The source text of an opaque expression with the variables it reads
/// under their generated names: a variable renamed because its name clashes
/// (two `n` in one generated function, an inlined helper's parameter) is
/// renamed in the text too.  Identifiers inside string and character
/// literals are left alone.
std::string renamedText(const Expr &e) {
  std::map<std::string, std::string> ren;
  for (const Var *v : e.vars)
    if (v && v->name != v->userName)
      ren[v->userName] = v->name;
  if (ren.empty())
    return e.text;
  return renameIdentifiers(e.text, ren);
}

} // namespace

std::string renameIdentifiers(const std::string &t,
                              const std::map<std::string, std::string> &ren) {
  std::string out;
  for (size_t i = 0; i < t.size();) {
    char c = t[i];
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < t.size() && t[j] != c)
        j += t[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, t.size());
      out += t.substr(i, j - i);
      i = j;
    } else if (isalpha((unsigned char)c) || c == '_') {
      size_t j = i;
      while (j < t.size() && (isalnum((unsigned char)t[j]) || t[j] == '_'))
        ++j;
      std::string id = t.substr(i, j - i);
      bool member = i > 0 && (t[i - 1] == '.' || (i > 1 && t[i - 1] == '>' && t[i - 2] == '-'));
      auto it = ren.find(id);
      out += it != ren.end() && !member ? it->second : id;
      i = j;
    } else if (isdigit((unsigned char)c)) {
      size_t j = i;
      while (j < t.size() && (isalnum((unsigned char)t[j]) || t[j] == '_' || t[j] == '.'))
        ++j;
      out += t.substr(i, j - i);
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::string printExpr(const ExprP &e) {
  switch (e->kind) {
  case Expr::Opaque:
    if (e->ops.size() == 1) { // a member access, its base printed by name
      // (&p[i])->k, from a pointer to an element: p[i].k
      if (e->text.rfind("->", 0) == 0 && e->ops[0]->kind == Expr::AddrOf)
        return wrap(e->ops[0]->ops[0], 16) + "." + e->text.substr(2);
      return wrap(e->ops[0], 16) + e->text;
    }
    return renamedText(*e);
  case Expr::IntLit:
  case Expr::FloatLit:
    return e->text;
  case Expr::VarRef:
    // A field view alone is a field of a struct scalar: `a.x`.
    if (e->var->fieldOf)
      return e->var->fieldOf->name + e->var->field;
    return e->var->name;
  case Expr::Index: {
    // An element of a field view: the parent's element, then the field
    // (`p[i].x`, `u[i][j].pos.x`).
    const Expr *r = e.get();
    while (r->kind == Expr::Index)
      r = r->ops[0].get();
    if (r->kind == Expr::VarRef && r->var->fieldOf) {
      std::vector<std::string> idx; // outermost first
      for (const Expr *x = e.get(); x->kind == Expr::Index;
           x = x->ops[0].get())
        idx.insert(idx.begin(), "[" + printExpr(x->ops[1]) + "]");
      std::string out = r->var->fieldOf->name;
      size_t k = 0;
      for (; k < idx.size() && (int)k < r->var->fieldParentRank; ++k)
        out += idx[k];
      out += r->var->field;
      for (; k < idx.size(); ++k)
        out += idx[k];
      return out;
    }
    return wrap(e->ops[0], 16) + "[" + printExpr(e->ops[1]) + "]";
  }
  case Expr::Unary: {
    std::string a = wrap(e->ops[0], 15);
    if (!a.empty() && (a[0] == '-' || a[0] == '+') && e->text == "-")
      a = "(" + a + ")";
    return e->text + a;
  }
  case Expr::AddrOf:
    return "&" + wrap(e->ops[0], 15);
  case Expr::Cast:
    return "(" + e->text + ")" + wrap(e->ops[0], 15);
  case Expr::Binary: {
    int p = precedence(e);
    // Operands that C reads right without parentheses but that clang's
    // -Wparentheses asks to group (`a && b || c`, `a << b + c`, `a & b == c`,
    // `a & b | c`): parenthesised, so generated code compiles without
    // warnings under -Wall.
    auto operand = [&](const ExprP &o, int min) {
      std::string t = wrap(o, min);
      if (o->kind != Expr::Binary || t.front() == '(')
        return t;
      const std::string &a = e->text, &b = o->text;
      bool cmp = b == "==" || b == "!=" || b == "<" || b == "<=" ||
                 b == ">" || b == ">=";
      bool group = (a == "||" && b == "&&") ||
                   ((a == "<<" || a == ">>") && (b == "+" || b == "-")) ||
                   ((a == "&" || a == "|" || a == "^") && cmp) ||
                   (a == "|" && (b == "&" || b == "^")) ||
                   (a == "^" && b == "&");
      return group ? "(" + t + ")" : t;
    };
    return operand(e->ops[0], p) + " " + e->text + " " +
           operand(e->ops[1], p + 1);
  }
  case Expr::Cond:
    return wrap(e->ops[0], 4) + " ? " + wrap(e->ops[1], 3) + " : " +
           wrap(e->ops[2], 3);
  case Expr::Call: {
    std::string s = e->text + "(";
    for (size_t i = 0; i < e->ops.size(); ++i)
      s += (i ? ", " : "") + printExpr(e->ops[i]);
    return s + ")";
  }
  }
  return "";
}

static std::string baseType(const CType &t, bool dropConst) {
  std::string b = t.base;
  if (dropConst && b.rfind("const ", 0) == 0)
    b = b.substr(6);
  return b;
}

static std::string fromFmt(const std::string &fmt, const std::string &name) {
  std::string s = fmt;
  size_t at = s.find("@N@");
  if (at != std::string::npos)
    s.replace(at, 3, name);
  while (!s.empty() && s.back() == ' ')
    s.pop_back();
  return s;
}

/// A declarator format without its `const`s (a shadow's: `const real3 *`,
/// a pointer to a typedef'd array, spelled as Clang does, becomes
/// `real3 *`).
static std::string withoutConst(std::string fmt) {
  for (size_t at = fmt.find("const "); at != std::string::npos;
       at = fmt.find("const ", at)) {
    bool word = at == 0 || !(std::isalnum((unsigned char)fmt[at - 1]) ||
                             fmt[at - 1] == '_');
    if (word)
      fmt.erase(at, 6);
    else
      at += 6;
  }
  return fmt;
}

std::string printType(const CType &t, bool dropConst) {
  if (!t.declFmt.empty())
    return fromFmt(dropConst ? withoutConst(t.declFmt) : t.declFmt, "");
  std::string s = baseType(t, dropConst);
  int depth = t.ptrDepth + (int)t.dims.size();
  if (depth)
    s += " " + std::string(depth, '*');
  return s;
}

std::string printDecl(const Var &v, bool dropConst) {
  if (!v.type.declFmt.empty())
    return fromFmt(dropConst ? withoutConst(v.type.declFmt) : v.type.declFmt,
                   v.name);
  std::string s = baseType(v.type, dropConst) + " ";
  s += std::string(v.type.ptrDepth, '*') + v.name;
  for (const std::string &d : v.type.dims)
    s += "[" + d + "]";
  return s;
}

static void printStmt(const StmtP &s, int ind, std::string &out);

static std::string inlineStmt(const StmtP &s) {
  if (!s)
    return "";
  if (s->kind == Stmt::Decl)
    return printDecl(*s->var) + (s->rhs ? " = " + printExpr(s->rhs) : "");
  if (s->kind == Stmt::Assign) {
    if ((s->op == "+=" || s->op == "-=") && isOneLiteral(s->rhs) &&
        s->lhs->kind == Expr::VarRef)
      return s->lhs->var->name + (s->op == "+=" ? "++" : "--");
    return printExpr(s->lhs) + " " + s->op + " " + printExpr(s->rhs);
  }
  if (s->kind == Stmt::ExprStmt)
    return printExpr(s->rhs);
  return "";
}

static void printBody(const Block &b, int ind, std::string &out) {
  out += "{\n";
  printBlock(b, ind + 1, out);
  out += pad(ind) + "}";
}

static void printStmt(const StmtP &s, int ind, std::string &out) {
  switch (s->kind) {
  case Stmt::Decl:
  case Stmt::Assign:
  case Stmt::ExprStmt:
    out += pad(ind) + inlineStmt(s) + ";\n";
    return;
  case Stmt::Comment:
    out += pad(ind) + "/* " + s->text + " */\n";
    return;
  case Stmt::Compound:
    out += pad(ind);
    printBody(s->body, ind, out);
    out += "\n";
    return;
  case Stmt::If: {
    out += pad(ind) + "if (" + printExpr(s->cond) + ") ";
    printBody(s->body, ind, out);
    const Block *els = &s->elseBody;
    while (!els->empty()) {
      if (els->size() == 1 && (*els)[0]->kind == Stmt::If) {
        const StmtP &e = (*els)[0];
        out += " else if (" + printExpr(e->cond) + ") ";
        printBody(e->body, ind, out);
        els = &e->elseBody;
        continue;
      }
      out += " else ";
      printBody(*els, ind, out);
      break;
    }
    out += "\n";
    return;
  }
  case Stmt::For:
    out += pad(ind) + "for (" + inlineStmt(s->init) + "; " +
           (s->cond ? printExpr(s->cond) : "") + "; " + inlineStmt(s->step) +
           ") ";
    printBody(s->body, ind, out);
    out += "\n";
    return;
  case Stmt::While:
    out += pad(ind) + "while (" + printExpr(s->cond) + ") ";
    printBody(s->body, ind, out);
    out += "\n";
    return;
  case Stmt::DoWhile:
    out += pad(ind) + "do ";
    printBody(s->body, ind, out);
    out += " while (" + printExpr(s->cond) + ");\n";
    return;
  case Stmt::Break:
    out += pad(ind) + "break;\n";
    return;
  case Stmt::Continue:
    out += pad(ind) + "continue;\n";
    return;
  case Stmt::Return:
    out += pad(ind) + "return" + (s->rhs ? " " + printExpr(s->rhs) : "") +
           ";\n";
    return;
  case Stmt::Comm: {
    out += pad(ind) + s->comm.name + "(";
    for (size_t i = 0; i < s->comm.args.size(); ++i)
      out += (i ? ", " : "") + printExpr(s->comm.args[i]);
    out += ");\n";
    return;
  }
  }
}

void printBlock(const Block &b, int indent, std::string &out) {
  for (const StmtP &s : b)
    printStmt(s, indent, out);
}

} // namespace mpiad
