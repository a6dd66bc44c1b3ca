// The shell language of the simulated containers (container_sandbox.h): a script split into
// words and operators (Tokenize), then into pipelines of simple commands with redirections
// (Parse). Words keep their variable references ($NAME, ${NAME}, $?) unexpanded, so that each
// command sees the variables set before it. Quoting as POSIX sh: '...' literal, "..." with $ and
// backslash escapes of " \\ $ `; a backslash outside quotes escapes the next character; `#` at the
// start of a word comments to the end of the line. No globbing, subshells, functions, loops or
// background jobs (& is an error).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace trimtab::cluster::exec {

// A word of a script: literal text and variable references, expanded when its command runs.
struct Piece {
  bool variable = false;
  std::string text;  // the literal, or the variable's name
};
struct Word {
  std::vector<Piece> pieces;
};

enum class Op { kNone, kSemicolon, kAnd, kOr, kPipe, kIn, kOut, kAppend, kErrOut, kErrAppend,
                kErrToOut, kOutToErr };

struct Token {
  Op op = Op::kNone;  // kNone: a word
  Word word;
};

struct Redirect {
  Op op;
  Word target;
};
struct SimpleCommand {
  std::vector<Word> words;
  std::vector<Redirect> redirects;
};
struct Pipeline {
  Op connector = Op::kSemicolon;  // how it follows the previous one: ; && ||
  std::vector<SimpleCommand> commands;
};

// Splits `script` into words and operators; an unterminated quote is an error.
StatusOr<std::vector<Token>> Tokenize(const std::string& script);
// Groups tokens into pipelines; a missing command ("a ; && b", "a |") is a syntax error.
StatusOr<std::vector<Pipeline>> Parse(const std::vector<Token>& tokens);

}  // namespace trimtab::cluster::exec
