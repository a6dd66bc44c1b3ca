#include "cluster/apiserver/exec/shell_script.h"

#include <cctype>

namespace trimtab::cluster::exec {

StatusOr<std::vector<Token>> Tokenize(const std::string& script) {
  std::vector<Token> tokens;
  Token current;
  bool in_word = false;
  auto literal = [&](char c) {
    if (current.word.pieces.empty() || current.word.pieces.back().variable) {
      current.word.pieces.push_back({});
    }
    current.word.pieces.back().text += c;
    in_word = true;
  };
  auto end_word = [&] {
    if (in_word) tokens.push_back(std::move(current));
    current = Token{};
    in_word = false;
  };
  auto op = [&](Op o) {
    end_word();
    tokens.push_back({.op = o});
  };
  // $NAME, ${NAME}, $? at script[*i] == '$'; returns false when '$' is literal.
  auto variable = [&](size_t* i) {
    size_t j = *i + 1;
    std::string name;
    if (j < script.size() && script[j] == '{') {
      const size_t close = script.find('}', j);
      if (close == std::string::npos) return false;
      name = script.substr(j + 1, close - j - 1);
      j = close + 1;
    } else if (j < script.size() && script[j] == '?') {
      name = "?";
      ++j;
    } else {
      while (j < script.size() && (std::isalnum(static_cast<unsigned char>(script[j])) ||
                                   script[j] == '_')) {
        name += script[j++];
      }
    }
    if (name.empty()) return false;
    current.word.pieces.push_back({.variable = true, .text = name});
    in_word = true;
    *i = j - 1;
    return true;
  };
  for (size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    const char next = i + 1 < script.size() ? script[i + 1] : '\0';
    if (c == '\'') {
      const size_t close = script.find('\'', i + 1);
      if (close == std::string::npos) return InvalidArgumentError("unterminated quoted string");
      for (size_t k = i + 1; k < close; ++k) literal(script[k]);
      in_word = true;
      i = close;
    } else if (c == '"') {
      in_word = true;
      size_t k = i + 1;
      for (; k < script.size() && script[k] != '"'; ++k) {
        if (script[k] == '\\' && k + 1 < script.size() &&
            std::string("\"\\$`").find(script[k + 1]) != std::string::npos) {
          literal(script[++k]);
        } else if (script[k] == '$' && variable(&k)) {
        } else {
          literal(script[k]);
        }
      }
      if (k >= script.size()) return InvalidArgumentError("unterminated quoted string");
      i = k;
    } else if (c == '\\' && next != '\0') {
      if (next != '\n') literal(next);
      ++i;
    } else if (c == '$' && variable(&i)) {
    } else if (c == '#' && !in_word) {
      while (i < script.size() && script[i] != '\n') ++i;
      --i;
    } else if (c == ';' || c == '\n') {
      op(Op::kSemicolon);
    } else if (c == '&' && next == '&') {
      op(Op::kAnd);
      ++i;
    } else if (c == '|' && next == '|') {
      op(Op::kOr);
      ++i;
    } else if (c == '|') {
      op(Op::kPipe);
    } else if (c == '2' && !in_word && next == '>') {
      if (i + 3 < script.size() + 1 && script.compare(i, 4, "2>&1") == 0) {
        op(Op::kErrToOut);
        i += 3;
      } else if (script.compare(i, 3, "2>>") == 0) {
        op(Op::kErrAppend);
        i += 2;
      } else {
        op(Op::kErrOut);
        ++i;
      }
    } else if (c == '>' && next == '&' && i + 2 < script.size() && script[i + 2] == '2') {
      op(Op::kOutToErr);
      i += 2;
    } else if (c == '1' && !in_word && script.compare(i, 4, "1>&2") == 0) {
      op(Op::kOutToErr);
      i += 3;
    } else if (c == '>' && next == '>') {
      op(Op::kAppend);
      ++i;
    } else if (c == '>') {
      op(Op::kOut);
    } else if (c == '<') {
      op(Op::kIn);
    } else if (c == '&') {
      return InvalidArgumentError("background jobs (&) are not supported");
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      end_word();
    } else {
      literal(c);
    }
  }
  end_word();
  return tokens;
}

StatusOr<std::vector<Pipeline>> Parse(const std::vector<Token>& tokens) {
  std::vector<Pipeline> out;
  Pipeline pipeline;
  SimpleCommand command;
  Op pending = Op::kSemicolon;
  auto end_command = [&]() -> Status {
    if (command.words.empty() && command.redirects.empty()) {
      return InvalidArgumentError("syntax error: a command is missing");
    }
    pipeline.commands.push_back(std::move(command));
    command = {};
    return Status::Ok();
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    switch (t.op) {
      case Op::kNone:
        command.words.push_back(t.word);
        break;
      case Op::kIn: case Op::kOut: case Op::kAppend: case Op::kErrOut: case Op::kErrAppend:
        if (i + 1 >= tokens.size() || tokens[i + 1].op != Op::kNone) {
          return InvalidArgumentError("syntax error: a redirection without a file");
        }
        command.redirects.push_back({t.op, tokens[++i].word});
        break;
      case Op::kErrToOut: case Op::kOutToErr:
        command.redirects.push_back({t.op, {}});
        break;
      case Op::kPipe:
        TRIMTAB_RETURN_IF_ERROR(end_command());
        break;
      case Op::kSemicolon: case Op::kAnd: case Op::kOr:
        if (command.words.empty() && command.redirects.empty() && pipeline.commands.empty()) {
          if (t.op != Op::kSemicolon) return InvalidArgumentError("syntax error near &&/||");
          break;  // empty line
        }
        TRIMTAB_RETURN_IF_ERROR(end_command());
        pipeline.connector = pending;
        out.push_back(std::move(pipeline));
        pipeline = {};
        pending = t.op;
        break;
    }
  }
  if (!command.words.empty() || !command.redirects.empty()) {
    TRIMTAB_RETURN_IF_ERROR(end_command());
  } else if (!pipeline.commands.empty() || pending != Op::kSemicolon) {
    return InvalidArgumentError("syntax error: unexpected end of script");
  }
  if (!pipeline.commands.empty()) {
    pipeline.connector = pending;
    out.push_back(std::move(pipeline));
  }
  return out;
}

}  // namespace trimtab::cluster::exec
