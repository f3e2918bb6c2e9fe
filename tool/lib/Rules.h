//===- Rules.h - Rule tables loaded from rules/*.rules at run time --------===//
//
// Derivatives of math functions and the adjoint actions of communication
// calls are data, not code: mpiad-cc reads them from text files installed
// beside the tool (share/mpiad/rules) and from --rules FILE.  docs/rules.md
// describes the format.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_RULES_H
#define MPIAD_RULES_H

#include "IR.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mpiad {

/// `math pow(x, y)  dx = ... ; dy = ...`
struct MathRule {
  std::string name;
  std::vector<std::string> params;
  std::vector<ExprP> derivs; // one per param; null = zero derivative
  std::string where;         // file:line for messages
};

/// One argument of a communication call.
struct CommArg {
  std::string name;
  // Status: an MPI_Status (or an array of them) the call fills.  Like an
  // IntOut it is a value the call writes, recorded when the reverse sweep
  // reads it (a status read in the loop that receives into it).
  enum Role { Buffer, Count, Datatype, Op, Comm, IntOut, Status, Other } role =
      Other;
  bool read = false, write = false;
  std::string count, datatype; // for buffers: names of the describing args;
                               // for an intout or status array: its length
  /// `extent BUF EXPR`: how many elements the call writes into a buffer,
  /// an expression in the rule's arguments (null: the buffer's COUNT).  The
  /// forward sweep records that many when the reverse sweep needs the old
  /// contents: MPI_Allgather writes recvcount * size elements, not recvcount.
  ExprP extent;
  // For buffers (`exact` in the rule): the buffer holds exactly COUNT
  // elements of DATATYPE on every rank, which length inference may use.
  // Not so for a gather's receive buffer (COUNT per rank) or the v-variants.
  bool exactCount = false;
  /// `perrank ARG size|sources|destinations [root ROOT]`: ARG is an int
  /// array with one entry per rank of the communicator (or per source or
  /// destination of its topology), counts or displacements in elements of
  /// the buffer's datatype; with `root`, read only on rank ROOT.  Batched
  /// replicas (Replicas.cpp) scale these entries by R.
  std::string perRank, perRankRoot;
};

/// One step of an adjoint: a builtin (`allreduce(recvbuf)`,
/// `accumulate(sendbuf, recvbuf)`, `zero(recvbuf)`) or a call to a C function
/// whose arguments are rule parameters, `adj(BUF)` (the buffer's adjoint,
/// NULL where it carries none), `partial(BUF)` (1 when BUF's adjoint is a
/// per-rank share, 0 when exact) or constants.
struct CommAction {
  std::string op;
  std::vector<std::string> args;
  bool builtin = false;
};

/// `if ARG == VALUE && ARG != VALUE:` in front of a forward/adjoint line.
/// VALUE is compared with the argument as written; the word DERIVED stands
/// for any derived datatype (guardHolds).
struct Guard {
  std::string arg, value;
  bool equal = true;
};

/// Whether guard g holds for the call's argument `arg`, printed as `text`.
inline bool guardHolds(const Guard &g, const Expr &arg,
                       const std::string &text) {
  bool same = g.value == "DERIVED" ? arg.derivedDatatype : text == g.value;
  return same == g.equal;
}

struct CommStep {
  std::vector<Guard> guards;
  std::vector<CommAction> actions;
};

struct CommRule {
  std::string name;
  std::vector<CommArg> args;
  std::map<std::string, std::string> resultReplication; // arg -> replicated|varying
  std::map<std::string, std::vector<std::string>> allowedOps; // op arg -> ops
  std::vector<CommStep> forward; // replaces the primal call when guards hold
  std::vector<CommStep> tangent; // forward mode: replaces the primal call
  std::vector<CommStep> global, perRank;
  std::map<std::string, std::string> inPlace; // send arg -> the buffer it aliases
  bool pointToPoint = false;
  bool starts = false;    // starts a non-blocking operation (writes a request)
  bool completes = false; // completes requests: reversed when any start is
  std::vector<std::string> answers; // int outputs the program must not read
  std::string creates;  // arg: a communicator this call creates
  std::string releases; // arg: a communicator this call frees
  // `derived DATATYPE`: DATATYPE may be a derived datatype (MPI_Type_vector,
  // ...) on buffers that carry derivatives; the rule's helpers go through
  // its layout (runtime/layout.c).
  std::set<std::string> derived;
  /// `joins NEWCOMM ID` (ncclCommInitRank): NEWCOMM is made of the ranks
  /// that pass the same ID.  When ID is written by one broadcast over the
  /// reference communicator, NEWCOMM has the same ranks, and what a
  /// collective over it writes is replicated like one over the reference.
  std::string joinsComm, joinsId;
  /// Groups of point-to-point calls (ncclGroupStart / ncclGroupEnd): a call
  /// marked `ingroup` that carries derivatives must come between a
  /// `groupstart` call and a `groupend` call, because its reverse completes
  /// at the end of the reversed group.
  bool groupStart = false, groupEnd = false, inGroup = false;
  std::string where;

  int argIndex(const std::string &n) const {
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].name == n)
        return (int)i;
    return -1;
  }
};

class RuleSet {
public:
  /// Loads one file; on a malformed line prints `file:line:col: error: ...`
  /// to stderr and returns false.
  bool loadFile(const std::string &path);
  /// Loads every *.rules file of a directory (sorted by name).
  bool loadDir(const std::string &dir);

  const MathRule *math(const std::string &name) const {
    auto it = math_.find(name);
    return it == math_.end() ? nullptr : &it->second;
  }
  const CommRule *comm(const std::string &name) const {
    auto it = comm_.find(name);
    return it == comm_.end() ? nullptr : &it->second;
  }
  /// `inactive NAME`: an external function that only reads the data it is
  /// given (an I/O write) and whose result carries no derivative.
  bool inactive(const std::string &name) const {
    return inactive_.count(name) > 0;
  }

  /// Parses a C-like expression in terms of `params` (used for derivative
  /// rules).  Parameters become placeholders that `substitute` replaces.
  static ExprP parseExpr(const std::string &text, std::string &error,
                         size_t &errorCol);

private:
  std::map<std::string, MathRule> math_;
  std::map<std::string, CommRule> comm_;
  std::set<std::string> inactive_;
};

} // namespace mpiad

#endif
