//===- Transform.h - Small builders shared by reverse and forward mode ----===//
#ifndef MPIAD_TRANSFORM_H
#define MPIAD_TRANSFORM_H

#include "IR.h"
#include "clang/Basic/SourceLocation.h"
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mpiad {

bool named(const std::vector<std::pair<std::string, clang::SourceLocation>> &l,
           const std::string &n);
/// The path of a field view after its struct's name, as a clause writes
/// it: "->e" for a field of `S *s`, ".e" of `S s`, "->atoms->r" through
/// pointer fields.
std::string viewPath(const Var *view);
/// Does wrt(...) (wrt true) or output(...) name the field view `view`: its
/// struct named whole, or a path to it or to a struct on the way?
bool clauseNamesView(const Annotation &ann, const Var *view, bool wrt);
void append(Block &to, const Block &from);
/// Literals, variables and elements: cheap to repeat in an expression.
bool isSimple(const ExprP &e);
ExprP neg(const ExprP &e);
/// a * b, dropping factors of 1 and pulling out signs.
ExprP mul(const ExprP &a, const ExprP &b);
/// Variables referenced anywhere in a block.
void referenced(const Block &b, std::set<Var *> &out);
/// The variables the statements of b name, except inside the body of
/// `skip` (a loop whose header still counts) and except a variable's own
/// declaration (C89 code declares at the top what only a loop uses).
void referencedOutside(const Block &b, const Stmt *skip,
                       std::set<Var *> &out);
/// Variables read in a block (all references but the targets of whole
/// assignments `x = e`).
void readVars(const Block &b, std::set<Var *> &out);
/// The variable of `x = e;` or `T x = e;`; null for any other statement.
Var *copiedInto(const Stmt &s);
/// e without its casts.
ExprP withoutCasts(ExprP e);
/// A load of a struct's field through its base (`s.p`, `g->u`: an Opaque
/// member access, which carries no derivative).
bool isFieldLoad(const ExprP &e);
/// Removes the copies `x = e;` (and `T x = e;`) into pointers x that
/// `candidate` accepts and that nothing in `blocks` reads: the shadows of
/// pointers whose data carries nothing back (an inlined helper's parameter
/// of a sum that is not differentiated), which would be set but not used.
void dropUnreadPointerCopies(const std::vector<Block *> &blocks,
                             const std::function<bool(const Var *)> &candidate);

/// Variables declared by statements inside a block (inline temporaries).
void declaredIn(const Block &b, std::set<Var *> &out);
/// A declaration printed verbatim.
StmtP mkOpaqueDecl(const std::string &d);
/// Scalars and pointers are initialised in declarations.
bool scalarLike(const Var &v);
/// `(void)p;` for parameters a generated function does not use.
Block unusedParams(const std::vector<Var *> &params, const std::set<Var *> &used);
/// " = 0", " = NULL" or " = {0}".
std::string zeroInit(const Var &v);
/// e + k, folding a constant already there (`n - 1` + 1 is `n`).
ExprP plusConst(const ExprP &e, long long k);
/// idx as `base + i + c`: base free of i (null when there is none), c a
/// constant.  The operands of a sum of + and - are sorted out: exactly one
/// must be +i, integer literals add up to c, the rest is the base, rebuilt
/// in order and keyed by its text (`key`) for comparisons.
bool splitAffine(const ExprP &idx, const Var *i, ExprP &base, std::string &key,
                 long long &c);
/// Does the block hold a return, break or continue (at any depth)?
bool hasJump(const Block &b);
/// The variable v of a statement `free(v);`, or null.
Var *freedVar(const Stmt &s);
/// `posix_memalign(&p, align, n)` (its pointer argument below casts): p,
/// and the byte count n; null if `call` is not such a call.
Var *alignedAllocation(const ExprP &call, ExprP &bytes);
/// `malloc(n)`, the allocation that `posix_memalign(&p, align, n)` and
/// `aligned_alloc(align, n)` make (the adjoint needs the storage, not its
/// alignment).
ExprP plainAllocation(const ExprP &bytes);
/// `aligned_alloc(a, n)` (also memalign, below casts) as `malloc(n)`; any
/// other expression as it is.
ExprP unaligned(const ExprP &rhs);
/// The malloc/calloc call of an allocation `p = (T *)malloc(...)`, or null.
ExprP allocationCall(const ExprP &e);
/// `NULL`, `0`, `(void *)0` (below casts).
bool isNullPointer(const ExprP &e);
/// `e`, an expression in a callee's parameters, with the call's arguments in
/// place of the parameters.
ExprP bindArgs(const ExprP &e, const std::vector<Var *> &params,
               const std::vector<ExprP> &args);
/// `memcpy(a, (T[N]){...}, sizeof(a))`: (re)initialises a fixed array that
/// was declared with an initialiser list (its declaration moves to the top of
/// the generated function).
StmtP arrayInitCopy(const Stmt &decl);
/// Can the expression be evaluated a second time with the same result and
/// no side effect (no call, no increment)?  Calls of the functions for which
/// `pure` holds (math functions) are allowed.
bool sideEffectFree(
    const ExprP &e,
    const std::function<bool(const std::string &)> &pure = nullptr);
/// Element k of a buffer argument of a call (`&s`, `a`, `&a[j]`, `a + j`).
ExprP bufferElement(const ExprP &buf, const ExprP &k);
/// A copy of a block whose statements (at every depth) can be replaced
/// without touching the original (expressions are shared: they are never
/// changed in place).
Block deepCopy(const Block &b);
/// `k += c` or `k -= c` on an integer scalar k, c an integer constant
/// (`k++` arrives as `k += 1`): the old value of k is the new one minus c, so
/// the reverse sweep computes it instead of recording it.  The inverse
/// statement (`k -= c`), or null.
StmtP inverseIncrement(const Stmt &s);
/// Does e name v (a reference, or a variable of an opaque expression)?
bool mentionsVar(const ExprP &e, const Var *v);
/// Does a statement of b, at any depth, name v (declares it, counts a loop
/// with it, reads or writes it)?
bool namesVar(const Block &b, const Var *v);
/// Does a statement of b name v outside the statement `except` (and its
/// body)?
bool namedOutside(const Block &b, const Stmt &except, const Var *v);
/// A copy of b with every use of the variable v (read, or assigned as
/// `v = ...` / `v[k] += ...`) replaced by the expression `by` (the
/// statements copied, the expressions shared where v is absent).  False,
/// with `out` unchanged, where v
/// occurs in a way a substitution cannot follow: declared, a loop's
/// counter, its address taken (`&v`), or named in an opaque expression.
bool substituteVar(const Block &b, const Var *v, const ExprP &by, Block &out);
/// `{ T *tmp = a; a = b; b = tmp; }`: exchanges two pointers.
StmtP swapPointers(Var *a, Var *b, Var *tmp);
/// `static double u_b[8];` for each shadow (or tangent) in `shadows` of a
/// global: file-scope declarations, which C lets every generated function
/// repeat (tentative definitions).
/// `exposed`: globals (by name) whose shadows the caller sets or reads
/// (Module::exposedGlobals): declared without `static`.
std::string globalShadowDecls(const std::map<Var *, Var *> &shadows,
                              const std::set<std::string> &exposed);
/// The file-scope shadow of a global pointer the file allocates
/// (GlobalHeap.h), `double *state_b`, with its size in
/// `mpiad_bytes_state_b`.
bool isHeapShadow(const Var *s);
/// `memset(u_b, 0, sizeof u_b);` or `g_b = 0;`: a global's shadow zeroed.
StmtP zeroGlobal(Var *shadow);
/// Does e carry derivatives (an active floating value flows into it)?
bool carriesDerivative(const ExprP &e);
/// The lvalue / buffer e with the variable it is rooted at replaced by
/// `base(v)` (the shadow in reverse mode, the tangent in forward mode):
/// `x[i]` -> `x_b[i]`, `&s` -> `&s_b`, `p + k` -> `p_b + k`.
ExprP rebase(const ExprP &e, const std::function<Var *(Var *)> &base);
/// The statements of one primal statement's reverse or tangent, with each
/// call of a `pure` function that occurs more than once at their top level
/// computed once, into a temporary made by `temp` (CallReuse.cpp).
void reuseCalls(Block &b, const std::function<bool(const std::string &)> &pure,
                const std::function<Var *(Scalar)> &temp);
/// The calls of e that `want` accepts and that e evaluates whenever it is
/// evaluated (not in a branch of ?:, not right of && or ||), outer first;
/// with `nested`, also those inside an accepted call (CallReuse.cpp).
void unconditionalCalls(const ExprP &e,
                        const std::function<bool(const ExprP &)> &want,
                        bool nested, std::vector<ExprP> &out);
/// e with every subexpression that `match` accepts (outermost first)
/// replaced by `by` (CallReuse.cpp); e itself when there is none.
ExprP replaceWhere(const ExprP &e,
                   const std::function<bool(const ExprP &)> &match,
                   const ExprP &by);
/// e with every call printed as `call` replaced by `by` (CallReuse.cpp);
/// e itself when there is none.
ExprP replaceCall(const ExprP &e, const std::string &call, const ExprP &by);
/// s with every call printed as `call` in its sides replaced by `by`
/// (CallReuse.cpp); s itself when there is none.
StmtP replaceCalls(const StmtP &s, const std::string &call, const ExprP &by);

} // namespace mpiad

#endif
