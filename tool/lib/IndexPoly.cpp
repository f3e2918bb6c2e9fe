//===- IndexPoly.cpp - Array indices as polynomials -----------------------===//
//
// Stencils read through macros index arrays with whatever arithmetic the
// macro spells out: PRK's `in[(i) - istart + RADIUS + ((j) - jstart +
// RADIUS) * (width + 2 * RADIUS)]` has a row stride that is an expression
// and symbols with a minus sign.  Reading such an index as a polynomial in
// integer variables (sums of integer multiples of products of variables)
// makes two spellings of one index equal and separates what each loop
// counter contributes from the rest.  nestIndex (below) reads an index of a
// loop nest as strides times (counter + constant offset) plus a symbolic
// rest; Gather.cpp uses it to find the terms of a stencil's reverse.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Transform.h"

#include <algorithm>

namespace mpiad {

namespace {

/// A product of variables, sorted (by name, then creation order) so that
/// equal products compare equal and print the same way every run.
using Monomial = std::vector<const Var *>;

bool varBefore(const Var *a, const Var *b) {
  return a->name != b->name ? a->name < b->name : a->order < b->order;
}

struct MonomialLess {
  bool operator()(const Monomial &a, const Monomial &b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        varBefore);
  }
};

/// Sum of coefficient * monomial, no zero coefficient kept.
struct IndexPoly {
  std::map<Monomial, long long, MonomialLess> terms;

  void add(const Monomial &m, long long c) {
    if (!c)
      return;
    long long &t = terms[m];
    t += c;
    if (!t)
      terms.erase(m);
  }
  void add(const IndexPoly &p, long long scale) {
    for (auto &[m, c] : p.terms)
      add(m, c * scale);
  }
  long long coef(const Monomial &m) const {
    auto t = terms.find(m);
    return t == terms.end() ? 0 : t->second;
  }
};

const long long kLimit = 1LL << 30; // operands of a product: no overflow

IndexPoly constant(long long v) {
  IndexPoly p;
  p.add(Monomial{}, v);
  return p;
}

bool multiply(const IndexPoly &a, const IndexPoly &b, IndexPoly &out) {
  out = IndexPoly{};
  for (auto &[ma, ca] : a.terms)
    for (auto &[mb, cb] : b.terms) {
      if (std::llabs(ca) > kLimit || std::llabs(cb) > kLimit)
        return false;
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end(), varBefore);
      out.add(m, ca * cb);
    }
  return true;
}

/// e as a polynomial: integer literals and constants clang evaluated,
/// integer scalar variables that are loop counters (of `loops`) or never
/// change (isStable), +, -, * and unary minus.
bool toPoly(const ExprP &e, const std::set<const Var *> &loops,
            IndexPoly &out) {
  switch (e->kind) {
  case Expr::IntLit: {
    char *end = nullptr;
    long long v = std::strtoll(e->text.c_str(), &end, 0);
    if (end == e->text.c_str() || *end || std::llabs(v) > kLimit)
      return false;
    out = constant(v);
    return true;
  }
  case Expr::Opaque:
    if (!e->intConstant || !e->hasIntValue ||
        std::llabs(e->intValue) > kLimit)
      return false;
    out = constant(e->intValue);
    return true;
  case Expr::VarRef:
    if (!e->var->type.isIntScalar() ||
        (!loops.count(e->var) && !isStable(e->var)))
      return false;
    out = IndexPoly{};
    out.add(Monomial{e->var}, 1);
    return true;
  case Expr::Unary:
    if (e->text != "-" && e->text != "+")
      return false;
    if (!toPoly(e->ops[0], loops, out))
      return false;
    if (e->text == "-") {
      IndexPoly n;
      n.add(out, -1);
      out = n;
    }
    return true;
  case Expr::Binary: {
    IndexPoly a, b;
    if ((e->text != "+" && e->text != "-" && e->text != "*") ||
        !toPoly(e->ops[0], loops, a) || !toPoly(e->ops[1], loops, b))
      return false;
    if (e->text == "*")
      return multiply(a, b, out);
    out = a;
    out.add(b, e->text == "-" ? -1 : 1);
    return true;
  }
  default:
    return false;
  }
}

/// The highest-degree monomial of p (its stride's "leading" variable
/// product); null when p is a constant or two monomials share the highest
/// degree.
const Monomial *leading(const IndexPoly &p) {
  const Monomial *best = nullptr;
  bool tie = false;
  for (auto &[m, c] : p.terms) {
    (void)c;
    if (!best || m.size() > best->size()) {
      best = &m;
      tie = false;
    } else if (m.size() == best->size()) {
      tie = true;
    }
  }
  if (!best || best->empty() || tie)
    return nullptr;
  return best;
}

std::string printPoly(const IndexPoly &p) {
  std::string s;
  for (auto &[m, c] : p.terms) {
    s += (c < 0 ? "-" : "+") + std::to_string(std::llabs(c));
    // Two variables may share a name until Module::nameVariables makes
    // them unique (an inlined helper's n and the caller's): the key names
    // each by its creation order too.
    for (const Var *v : m)
      s += "*" + v->name + "#" + std::to_string(v->order);
  }
  return s.empty() ? "0" : s;
}

ExprP polyExpr(const IndexPoly &p) {
  ExprP e;
  long long k = 0;
  for (auto &[m, c] : p.terms) {
    if (m.empty()) {
      k = c;
      continue;
    }
    ExprP t;
    for (const Var *v : m) {
      ExprP x = mkVar(const_cast<Var *>(v));
      t = t ? mkBinary("*", t, x) : x;
    }
    long long a = std::llabs(c);
    if (a != 1)
      t = mkBinary("*", mkInt(a), t);
    e = !e ? (c < 0 ? mkUnary("-", t) : t) : mkBinary(c < 0 ? "-" : "+", e, t);
  }
  if (!e)
    return mkInt(k);
  return plusConst(e, k);
}

} // namespace

bool nestIndex(const ExprP &idx, const std::vector<const Var *> &counters,
               NestIndex &out) {
  const size_t D = counters.size();
  std::set<const Var *> loops(counters.begin(), counters.end());
  IndexPoly p;
  if (D == 0 || !toPoly(idx, loops, p))
    return false;
  // Split off each counter's coefficient; a monomial may hold one counter
  // once (no i * i, no i * j).
  std::vector<IndexPoly> coef(D);
  IndexPoly rest;
  for (auto &[m, c] : p.terms) {
    int at = -1;
    Monomial without;
    for (const Var *v : m) {
      auto k = std::find(counters.begin(), counters.end(), v);
      if (k == counters.end()) {
        without.push_back(v);
        continue;
      }
      if (at >= 0)
        return false;
      at = (int)(k - counters.begin());
    }
    if (at < 0)
      rest.add(m, c);
    else
      coef[at].add(without, c);
  }
  // The innermost counter at stride 1; every other stride has a leading
  // monomial of its own, which no inner stride contains.
  if (coef[D - 1].terms.size() != 1 || coef[D - 1].coef(Monomial{}) != 1)
    return false;
  std::vector<const Monomial *> lead(D, nullptr);
  for (size_t m = 0; m + 1 < D; ++m) {
    lead[m] = leading(coef[m]);
    if (!lead[m])
      return false;
    for (size_t q = m + 1; q < D; ++q)
      if (coef[q].coef(*lead[m]))
        return false;
  }
  // Offsets from the outermost dimension in: the rest's multiple of each
  // leading monomial, then the constant.
  out.offset.assign(D, 0);
  for (size_t m = 0; m + 1 < D; ++m) {
    long long a = coef[m].coef(*lead[m]), r = rest.coef(*lead[m]);
    if (r % a)
      return false;
    out.offset[m] = r / a;
    rest.add(coef[m], -out.offset[m]);
  }
  out.offset[D - 1] = rest.coef(Monomial{});
  rest.add(Monomial{}, -out.offset[D - 1]);
  out.stride.assign(D, nullptr);
  out.key.clear();
  for (size_t m = 0; m < D; ++m) {
    if (m + 1 < D)
      out.stride[m] = polyExpr(coef[m]);
    out.key += printPoly(coef[m]) + "|";
  }
  out.key += printPoly(rest);
  return true;
}

} // namespace mpiad
