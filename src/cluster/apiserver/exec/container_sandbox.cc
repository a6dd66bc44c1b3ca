#include "cluster/apiserver/exec/container_sandbox.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <set>

#include "cluster/apiserver/exec/shell_script.h"
#include "cluster/apiserver/exec/tar_archive.h"

namespace trimtab::cluster::exec {
namespace {

const std::set<std::string>& Commands() {
  static const std::set<std::string> kCommands = {
      "sh", "bash", "ash", "dash", "echo", "cat", "ls", "pwd", "env", "printenv", "hostname",
      "whoami", "id", "uname", "date", "sleep", "true", "false", "mkdir", "rm", "touch", "cp",
      "mv", "test", "[", "wc", "head", "tail", "grep", "which", "ps", "tar", "cd", "export",
      "unset", "exit"};
  return kCommands;
}

std::string BaseName(const std::string& argv0) {
  const size_t slash = argv0.rfind('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

// Whether a command with these literal words reads stdin (no `<` redirect considered).
bool CommandReadsStdin(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string cmd = BaseName(argv[0]);
  std::vector<std::string> operands;
  bool tar_extract = false;
  std::string tar_file;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "-" || argv[i].empty() || argv[i][0] != '-') operands.push_back(argv[i]);
  }
  if (cmd == "cat") return operands.empty() || std::count(operands.begin(), operands.end(), "-");
  if (cmd == "wc" || cmd == "head" || cmd == "tail") return operands.empty();
  if (cmd == "grep") return operands.size() <= 1;
  if (cmd == "sh" || cmd == "bash" || cmd == "ash" || cmd == "dash") {
    for (size_t i = 1; i < argv.size(); ++i) {
      if (argv[i] == "-c") {
        return i + 1 < argv.size() && ContainerSandbox::ReadsStdin({"sh", "-c", argv[i + 1]});
      }
    }
    return operands.empty();
  }
  if (cmd == "tar" && argv.size() > 1) {
    std::string flags = argv[1];
    for (size_t i = 1; i < argv.size(); ++i) {
      const std::string& a = argv[i];
      if (a.rfind("--", 0) == 0) continue;
      if (i == 1 || (a.size() > 1 && a[0] == '-' && a != "-C")) {
        const std::string f = a[0] == '-' ? a.substr(1) : a;
        if (f.find('x') != std::string::npos || f.find('t') != std::string::npos) {
          tar_extract = true;
        }
        const size_t fpos = f.find('f');
        if (fpos != std::string::npos && fpos + 1 == f.size() && i + 1 < argv.size()) {
          tar_file = argv[i + 1];
        }
      }
    }
    return tar_extract && (tar_file.empty() || tar_file == "-");
  }
  return false;
}

std::string ModeString(const SandboxNode& n) {
  std::string s = n.directory ? "d" : "-";
  const char* rwx = "rwxrwxrwx";
  for (int i = 0; i < 9; ++i) s += (n.mode >> (8 - i)) & 1 ? rwx[i] : '-';
  return s;
}

std::string FormatTime(int64_t t, const char* format) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace

// One exec: the sandbox's state for the commands of one script, with the exec's stdin.
class ContainerSandbox::Shell {
  friend class ContainerSandbox;  // RunLine keeps an interactive shell's state between lines

 public:
  Shell(ContainerSandbox* box, int64_t now) : box_(box), fs_(box->fs_), now_(now) {
    vars_ = box->env_;
    cwd_ = box->working_dir_;
  }

  // Runs a script; `in` is the script's stdin.
  ExecResult RunScript(const std::string& script, std::string in) {
    ExecResult r;
    StatusOr<std::vector<Token>> tokens = Tokenize(script);
    StatusOr<std::vector<Pipeline>> parsed =
        tokens.ok() ? Parse(*tokens) : StatusOr<std::vector<Pipeline>>(tokens.status());
    if (!parsed.ok()) {
      r.err = "sh: " + parsed.status().message() + "\n";
      r.exit_code = 2;
      return r;
    }
    stdin_ = std::move(in);
    int status = 0;
    for (const Pipeline& p : *parsed) {
      if (p.connector == Op::kAnd && status != 0) continue;
      if (p.connector == Op::kOr && status == 0) continue;
      status = RunPipeline(p, &r);
      vars_["?"] = std::to_string(status);
      if (exited_) break;
    }
    r.exit_code = exited_ ? exit_code_ : status;
    return r;
  }

  // A direct exec of argv (no shell).
  ExecResult RunArgv(const std::vector<std::string>& argv, std::string in) {
    ExecResult r;
    if (argv.empty() || !Commands().count(BaseName(argv[0])) ||
        BaseName(argv[0]) == "cd" || BaseName(argv[0]) == "export" ||
        BaseName(argv[0]) == "unset" || BaseName(argv[0]) == "exit") {
      r.start_error = "exec: \"" + (argv.empty() ? std::string() : argv[0]) +
                      "\": executable file not found in $PATH";
      return r;
    }
    stdin_ = std::move(in);
    std::string out, err;
    r.exit_code = Dispatch(argv, &stdin_, &out, &err);
    r.out = std::move(out);
    r.err = std::move(err);
    return r;
  }

 private:
  std::string Expand(const Word& w) const {
    std::string s;
    for (const Piece& p : w.pieces) {
      if (!p.variable) {
        s += p.text;
        continue;
      }
      auto it = vars_.find(p.text);
      if (it != vars_.end()) s += it->second;
    }
    return s;
  }

  int RunPipeline(const Pipeline& p, ExecResult* r) {
    std::string piped;
    bool have_pipe = false;
    int status = 0;
    for (size_t i = 0; i < p.commands.size(); ++i) {
      const SimpleCommand& c = p.commands[i];
      std::string in;
      std::string* input = &stdin_;
      if (have_pipe) {
        in = std::move(piped);
        input = &in;
      }
      std::string out, err;
      bool err_to_out = false, out_to_err = false;
      std::vector<std::pair<Op, std::string>> files;
      for (const Redirect& rd : c.redirects) {
        if (rd.op == Op::kErrToOut) err_to_out = true;
        else if (rd.op == Op::kOutToErr) out_to_err = true;
        else files.push_back({rd.op, fs_.Resolve(cwd_, Expand(rd.target))});
      }
      for (const auto& [op, path] : files) {
        if (op != Op::kIn) continue;
        const SandboxNode* n = fs_.Find(path);
        if (path == "/dev/null") {
          in.clear();
        } else if (!n || n->directory) {
          r->err += "sh: can't open '" + path + "': " +
                    (n ? "Is a directory" : "No such file or directory") + "\n";
          return 1;
        } else {
          in = n->data;
        }
        input = &in;
      }
      std::vector<std::string> argv;
      for (const Word& w : c.words) argv.push_back(Expand(w));
      status = argv.empty() ? 0 : RunCommand(argv, input, &out, &err);
      if (err_to_out) {
        out += err;
        err.clear();
      }
      if (out_to_err) {
        err += out;
        out.clear();
      }
      for (const auto& [op, path] : files) {
        if (op == Op::kIn) continue;
        const bool is_err = op == Op::kErrOut || op == Op::kErrAppend;
        std::string& data = is_err ? err : out;
        if (path != "/dev/null") {
          Status s = fs_.WriteFile(path, data, op == Op::kAppend || op == Op::kErrAppend, now_);
          if (!s.ok()) {
            r->err += "sh: can't create " + s.message() + "\n";
            status = 1;
          }
        }
        data.clear();
      }
      r->err += err;
      if (i + 1 < p.commands.size()) {
        piped = std::move(out);
        have_pipe = true;
      } else {
        r->out += out;
      }
      if (exited_) break;
    }
    return status;
  }

  // Builtins that change the shell, then the commands.
  int RunCommand(const std::vector<std::string>& argv, std::string* in, std::string* out,
                 std::string* err) {
    const std::string& a0 = argv[0];
    const size_t eq = a0.find('=');
    if (eq != std::string::npos && eq > 0 && argv.size() == 1) {
      vars_[a0.substr(0, eq)] = a0.substr(eq + 1);
      return 0;
    }
    if (a0 == "exit") {
      exited_ = true;
      exit_code_ = argv.size() > 1 ? std::atoi(argv[1].c_str()) & 0xff
                                   : std::atoi(vars_["?"].c_str());
      return exit_code_;
    }
    if (a0 == "cd") {
      const std::string target = fs_.Resolve(cwd_, argv.size() > 1 ? argv[1] : vars_["HOME"]);
      const SandboxNode* n = fs_.Find(target);
      if (!n || !n->directory) {
        *err += "sh: cd: can't cd to " + (argv.size() > 1 ? argv[1] : target) + ": " +
                (n ? "Not a directory" : "No such file or directory") + "\n";
        return 2;
      }
      cwd_ = target;
      vars_["PWD"] = target;
      return 0;
    }
    if (a0 == "export" || a0 == "unset") {
      for (size_t i = 1; i < argv.size(); ++i) {
        const size_t e = argv[i].find('=');
        if (a0 == "unset") vars_.erase(argv[i]);
        else if (e != std::string::npos) vars_[argv[i].substr(0, e)] = argv[i].substr(e + 1);
      }
      return 0;
    }
    if (!Commands().count(BaseName(a0))) {
      *err += "sh: " + a0 + ": not found\n";
      return 127;
    }
    return Dispatch(argv, in, out, err);
  }

  // Reads a file operand ("-" is stdin) into *data; false with a message on *err otherwise.
  bool ReadOperand(const std::string& cmd, const std::string& operand, std::string* in,
                   std::string* data, std::string* err) {
    if (operand == "-") {
      *data = std::move(*in);
      in->clear();
      return true;
    }
    const SandboxNode* n = fs_.Find(fs_.Resolve(cwd_, operand));
    if (!n) {
      *err += cmd + ": " + operand + ": No such file or directory\n";
      return false;
    }
    if (n->directory) {
      *err += cmd + ": read error: Is a directory\n";
      return false;
    }
    *data = n->data;
    return true;
  }

  // Splits argv[1..] into single-letter flags (and -n N style values) and operands.
  struct Args {
    std::set<char> flags;
    std::map<char, std::string> values;
    std::vector<std::string> operands;
  };
  static Args SplitArgs(const std::vector<std::string>& argv, const std::string& with_value) {
    Args a;
    bool only_operands = false;
    for (size_t i = 1; i < argv.size(); ++i) {
      const std::string& s = argv[i];
      if (only_operands || s.size() < 2 || s[0] != '-' ) {
        a.operands.push_back(s);
        continue;
      }
      if (s == "--") {
        only_operands = true;
        continue;
      }
      for (size_t k = 1; k < s.size(); ++k) {
        if (with_value.find(s[k]) != std::string::npos) {
          if (k + 1 < s.size()) a.values[s[k]] = s.substr(k + 1);
          else if (i + 1 < argv.size()) a.values[s[k]] = argv[++i];
          break;
        }
        a.flags.insert(s[k]);
      }
    }
    return a;
  }

  int Dispatch(const std::vector<std::string>& argv, std::string* in, std::string* out,
               std::string* err);
  int Ls(const std::vector<std::string>& argv, std::string* out, std::string* err);
  int Test(std::vector<std::string> args, std::string* err);
  int Tar(const std::vector<std::string>& argv, std::string* in, std::string* out,
          std::string* err);
  int Lines(const std::string& cmd, const std::vector<std::string>& argv, std::string* in,
            std::string* out, std::string* err);

  ContainerSandbox* box_;
  SandboxFs& fs_;
  int64_t now_;
  std::map<std::string, std::string> vars_;
  std::string cwd_;
  std::string stdin_;
  bool exited_ = false;
  int exit_code_ = 0;
};

int ContainerSandbox::Shell::Dispatch(const std::vector<std::string>& argv, std::string* in,
                                      std::string* out, std::string* err) {
  const std::string cmd = BaseName(argv[0]);
  if (cmd == "sh" || cmd == "bash" || cmd == "ash" || cmd == "dash") {
    for (size_t i = 1; i < argv.size(); ++i) {
      if (argv[i] == "-c") {
        if (i + 1 >= argv.size()) {
          *err += cmd + ": -c requires an argument\n";
          return 2;
        }
        Shell sub(box_, now_);
        sub.vars_ = vars_;
        sub.cwd_ = cwd_;
        ExecResult r = sub.RunScript(argv[i + 1], std::move(*in));
        in->clear();
        *out += r.out;
        *err += r.err;
        return r.exit_code;
      }
    }
    Args a = SplitArgs(argv, "");
    std::string script;
    if (!a.operands.empty()) {
      if (!ReadOperand(cmd, a.operands[0], in, &script, err)) return 127;
    } else {
      script = std::move(*in);
      in->clear();
    }
    Shell sub(box_, now_);
    sub.vars_ = vars_;
    sub.cwd_ = cwd_;
    ExecResult r = sub.RunScript(script, "");
    *out += r.out;
    *err += r.err;
    return r.exit_code;
  }
  if (cmd == "true") return 0;
  if (cmd == "false") return 1;
  if (cmd == "echo") {
    size_t i = 1;
    bool newline = true;
    if (argv.size() > 1 && argv[1] == "-n") {
      newline = false;
      i = 2;
    }
    for (size_t k = i; k < argv.size(); ++k) *out += (k > i ? " " : "") + argv[k];
    if (newline) *out += "\n";
    return 0;
  }
  if (cmd == "cat") {
    Args a = SplitArgs(argv, "");
    if (a.operands.empty()) a.operands.push_back("-");
    int status = 0;
    for (const std::string& f : a.operands) {
      std::string data;
      if (ReadOperand("cat", f, in, &data, err)) *out += data;
      else status = 1;
    }
    return status;
  }
  if (cmd == "ls") return Ls(argv, out, err);
  if (cmd == "pwd") {
    *out += cwd_ + "\n";
    return 0;
  }
  if (cmd == "env" || cmd == "printenv") {
    if (argv.size() > 1 && cmd == "printenv") {
      int status = 0;
      for (size_t i = 1; i < argv.size(); ++i) {
        auto it = vars_.find(argv[i]);
        if (it == vars_.end()) status = 1;
        else *out += it->second + "\n";
      }
      return status;
    }
    for (const auto& [k, v] : vars_) {
      if (k != "?") *out += k + "=" + v + "\n";
    }
    return 0;
  }
  if (cmd == "hostname") {
    *out += box_->hostname_ + "\n";
    return 0;
  }
  if (cmd == "whoami") {
    *out += "root\n";
    return 0;
  }
  if (cmd == "id") {
    *out += "uid=0(root) gid=0(root) groups=0(root)\n";
    return 0;
  }
  if (cmd == "uname") {
    Args a = SplitArgs(argv, "");
    if (a.flags.count('a')) {
      *out += "Linux " + box_->hostname_ + " 6.1.0-trimtab-local #1 SMP x86_64 GNU/Linux\n";
    } else if (a.flags.count('n')) {
      *out += box_->hostname_ + "\n";
    } else if (a.flags.count('m')) {
      *out += "x86_64\n";
    } else if (a.flags.count('r')) {
      *out += "6.1.0-trimtab-local\n";
    } else {
      *out += "Linux\n";
    }
    return 0;
  }
  if (cmd == "date") {
    *out += FormatTime(now_, "%a %b %e %H:%M:%S UTC %Y") + "\n";
    return 0;
  }
  if (cmd == "sleep") {
    if (argv.size() < 2) {
      *err += "sleep: missing operand\n";
      return 1;
    }
    return 0;  // returns at once: the simulated container has no processes to wait for
  }
  if (cmd == "ps") {
    *out += "PID   USER     TIME  COMMAND\n    1 root      0:00 " + box_->main_command_ + "\n";
    return 0;
  }
  if (cmd == "which") {
    int status = 0;
    for (size_t i = 1; i < argv.size(); ++i) {
      if (Commands().count(argv[i]) && argv[i] != "cd" && argv[i] != "export" &&
          argv[i] != "unset" && argv[i] != "exit") {
        *out += "/bin/" + argv[i] + "\n";
      } else {
        status = 1;
      }
    }
    return status;
  }
  if (cmd == "mkdir") {
    Args a = SplitArgs(argv, "m");
    int status = 0;
    for (const std::string& d : a.operands) {
      const std::string p = fs_.Resolve(cwd_, d);
      Status s = a.flags.count('p') ? fs_.MakeDirs(p, now_) : fs_.MakeDir(p, now_);
      if (!s.ok()) {
        *err += "mkdir: can't create directory '" + d + "': " +
                s.message().substr(s.message().find(": ") + 2) + "\n";
        status = 1;
      }
    }
    return status;
  }
  if (cmd == "rm") {
    Args a = SplitArgs(argv, "");
    const bool recursive = a.flags.count('r') || a.flags.count('R');
    int status = 0;
    for (const std::string& f : a.operands) {
      const std::string p = fs_.Resolve(cwd_, f);
      const SandboxNode* n = fs_.Find(p);
      if (!n) {
        if (!a.flags.count('f')) {
          *err += "rm: can't remove '" + f + "': No such file or directory\n";
          status = 1;
        }
        continue;
      }
      if (n->directory && !recursive) {
        *err += "rm: '" + f + "' is a directory\n";
        status = 1;
        continue;
      }
      Status s = fs_.Remove(p, true);
      if (!s.ok()) {
        *err += "rm: can't remove '" + f + "': " + s.message() + "\n";
        status = 1;
      }
    }
    return status;
  }
  if (cmd == "touch") {
    Args a = SplitArgs(argv, "");
    int status = 0;
    for (const std::string& f : a.operands) {
      const std::string p = fs_.Resolve(cwd_, f);
      const SandboxNode* n = fs_.Find(p);
      Status s = fs_.WriteFile(p, "", /*append=*/n != nullptr, now_);
      if (!s.ok() && !(n && n->directory)) {
        *err += "touch: " + f + ": No such file or directory\n";
        status = 1;
      }
    }
    return status;
  }
  if (cmd == "cp" || cmd == "mv") {
    Args a = SplitArgs(argv, "");
    if (a.operands.size() != 2) {
      *err += cmd + ": need a source and a destination (one file)\n";
      return 1;
    }
    const std::string src = fs_.Resolve(cwd_, a.operands[0]);
    std::string dst = fs_.Resolve(cwd_, a.operands[1]);
    const SandboxNode* n = fs_.Find(src);
    if (!n) {
      *err += cmd + ": can't stat '" + a.operands[0] + "': No such file or directory\n";
      return 1;
    }
    if (n->directory) {
      *err += cmd + ": '" + a.operands[0] + "' is a directory (only files are copied)\n";
      return 1;
    }
    if (const SandboxNode* d = fs_.Find(dst); d && d->directory) dst += "/" + fs_.Base(src);
    const std::string data = n->data;
    const uint32_t mode = n->mode;
    Status s = fs_.WriteFile(dst, data, false, now_, mode);
    if (!s.ok()) {
      *err += cmd + ": can't create '" + a.operands[1] + "': " + s.message() + "\n";
      return 1;
    }
    if (cmd == "mv" && dst != src) (void)fs_.Remove(src, false);
    return 0;
  }
  if (cmd == "test" || cmd == "[") {
    std::vector<std::string> args(argv.begin() + 1, argv.end());
    if (cmd == "[") {
      if (args.empty() || args.back() != "]") {
        *err += "[: missing ]\n";
        return 2;
      }
      args.pop_back();
    }
    return Test(std::move(args), err);
  }
  if (cmd == "wc" || cmd == "head" || cmd == "tail" || cmd == "grep") {
    return Lines(cmd, argv, in, out, err);
  }
  if (cmd == "tar") return Tar(argv, in, out, err);
  *err += "sh: " + argv[0] + ": not found\n";
  return 127;
}

int ContainerSandbox::Shell::Ls(const std::vector<std::string>& argv, std::string* out,
                                std::string* err) {
  Args a = SplitArgs(argv, "");
  const bool all = a.flags.count('a') || a.flags.count('A');
  const bool long_format = a.flags.count('l');
  if (a.operands.empty()) a.operands.push_back(".");
  int status = 0;
  auto line = [&](const std::string& name, const SandboxNode& n) {
    if (!long_format) return name + "\n";
    char size[32];
    std::snprintf(size, sizeof size, "%12zu", n.directory ? size_t{4096} : n.data.size());
    return ModeString(n) + "    1 root     root" + size + " " +
           FormatTime(n.mtime, "%b %e %H:%M") + " " + name + "\n";
  };
  const bool headers = a.operands.size() > 1;
  for (const std::string& operand : a.operands) {
    const std::string p = fs_.Resolve(cwd_, operand);
    const SandboxNode* n = fs_.Find(p);
    if (!n) {
      *err += "ls: " + operand + ": No such file or directory\n";
      status = 1;
      continue;
    }
    if (!n->directory || a.flags.count('d')) {
      *out += line(operand, *n);
      continue;
    }
    if (headers) *out += operand + ":\n";
    for (const std::string& name : fs_.List(p)) {
      if (!all && name[0] == '.') continue;
      *out += line(name, *fs_.Find(p == "/" ? "/" + name : p + "/" + name));
    }
  }
  return status;
}

int ContainerSandbox::Shell::Test(std::vector<std::string> args, std::string* err) {
  bool negate = false;
  if (!args.empty() && args[0] == "!") {
    negate = true;
    args.erase(args.begin());
  }
  bool result = false;
  if (args.empty()) {
    result = false;
  } else if (args.size() == 1) {
    result = !args[0].empty();
  } else if (args.size() == 2) {
    const std::string& op = args[0];
    const SandboxNode* n = fs_.Find(fs_.Resolve(cwd_, args[1]));
    if (op == "-e") result = n != nullptr;
    else if (op == "-f") result = n && !n->directory;
    else if (op == "-d") result = n && n->directory;
    else if (op == "-s") result = n && !n->directory && !n->data.empty();
    else if (op == "-r" || op == "-w") result = n != nullptr;
    else if (op == "-x") result = n && (n->directory || (n->mode & 0111));
    else if (op == "-z") result = args[1].empty();
    else if (op == "-n") result = !args[1].empty();
    else {
      *err += "test: " + op + ": unknown operand\n";
      return 2;
    }
  } else if (args.size() == 3) {
    const std::string& l = args[0];
    const std::string& op = args[1];
    const std::string& r = args[2];
    if (op == "=" || op == "==") result = l == r;
    else if (op == "!=") result = l != r;
    else {
      const long a = std::atol(l.c_str()), b = std::atol(r.c_str());
      if (op == "-eq") result = a == b;
      else if (op == "-ne") result = a != b;
      else if (op == "-lt") result = a < b;
      else if (op == "-le") result = a <= b;
      else if (op == "-gt") result = a > b;
      else if (op == "-ge") result = a >= b;
      else {
        *err += "test: " + op + ": unknown operand\n";
        return 2;
      }
    }
  } else {
    *err += "test: too many arguments\n";
    return 2;
  }
  return (result != negate) ? 0 : 1;
}

int ContainerSandbox::Shell::Lines(const std::string& cmd, const std::vector<std::string>& argv,
                                   std::string* in, std::string* out, std::string* err) {
  Args a = SplitArgs(argv, cmd == "head" || cmd == "tail" ? "n" : "");
  std::string pattern;
  if (cmd == "grep") {
    if (a.operands.empty()) {
      *err += "grep: missing pattern\n";
      return 2;
    }
    pattern = a.operands[0];
    a.operands.erase(a.operands.begin());
  }
  if (a.operands.empty()) a.operands.push_back("-");
  int status = cmd == "grep" ? 1 : 0;
  size_t matches = 0;
  for (const std::string& f : a.operands) {
    std::string data;
    if (!ReadOperand(cmd, f, in, &data, err)) {
      status = 2;
      continue;
    }
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < data.size()) {
      const size_t nl = data.find('\n', start);
      lines.push_back(data.substr(start, nl == std::string::npos ? std::string::npos
                                                                  : nl - start + 1));
      start = nl == std::string::npos ? data.size() : nl + 1;
    }
    if (cmd == "wc") {
      size_t words = 0;
      bool in_word = false;
      for (char c : data) {
        const bool space = std::isspace(static_cast<unsigned char>(c));
        if (!space && !in_word) ++words;
        in_word = !space;
      }
      const size_t nl = static_cast<size_t>(std::count(data.begin(), data.end(), '\n'));
      std::string line;
      if (a.flags.empty()) {
        line = std::to_string(nl) + " " + std::to_string(words) + " " + std::to_string(data.size());
      } else {
        if (a.flags.count('l')) line += std::to_string(nl);
        if (a.flags.count('w')) line += (line.empty() ? "" : " ") + std::to_string(words);
        if (a.flags.count('c')) line += (line.empty() ? "" : " ") + std::to_string(data.size());
      }
      *out += line + (f == "-" ? "" : " " + f) + "\n";
    } else if (cmd == "head" || cmd == "tail") {
      const size_t n = a.values.count('n') ? std::strtoul(a.values['n'].c_str(), nullptr, 10) : 10;
      const size_t from = cmd == "head" ? 0 : (lines.size() > n ? lines.size() - n : 0);
      const size_t to = cmd == "head" ? std::min(n, lines.size()) : lines.size();
      for (size_t i = from; i < to; ++i) *out += lines[i];
    } else {
      const bool icase = a.flags.count('i');
      auto lower = [](std::string s) {
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
      };
      const std::string p = icase ? lower(pattern) : pattern;
      for (const std::string& l : lines) {
        const bool hit = (icase ? lower(l) : l).find(p) != std::string::npos;
        const bool invert = a.flags.count('v') > 0;
        if (hit == invert) continue;
        ++matches;
        if (!a.flags.count('q') && !a.flags.count('c')) {
          *out += (a.operands.size() > 1 ? f + ":" : "") + l;
          if (l.empty() || l.back() != '\n') *out += "\n";
        }
      }
    }
  }
  if (cmd == "grep") {
    if (a.flags.count('c')) *out += std::to_string(matches) + "\n";
    if (status != 2) status = matches > 0 ? 0 : 1;
  }
  return status;
}

int ContainerSandbox::Shell::Tar(const std::vector<std::string>& argv, std::string* in,
                                 std::string* out, std::string* err) {
  char mode = 0;
  bool verbose = false;
  std::string file, dir = cwd_;
  std::vector<std::string> operands;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    if (s.rfind("--", 0) == 0) {
      if (s == "--no-same-permissions" || s == "--no-same-owner") continue;
      *err += "tar: unrecognized option '" + s + "'\n";
      return 2;
    }
    if (s == "-C" && i + 1 < argv.size()) {
      dir = fs_.Resolve(cwd_, argv[++i]);
      continue;
    }
    if ((i == 1 && !s.empty() && s[0] != '/') || (s.size() > 1 && s[0] == '-')) {
      const std::string flags = s[0] == '-' ? s.substr(1) : s;
      for (size_t k = 0; k < flags.size(); ++k) {
        const char f = flags[k];
        if (f == 'c' || f == 'x' || f == 't') mode = f;
        else if (f == 'v') verbose = true;
        else if (f == 'm' || f == 'p' || f == 'o') continue;
        else if (f == 'f') {
          if (k + 1 < flags.size()) file = flags.substr(k + 1);
          else if (i + 1 < argv.size()) file = argv[++i];
          break;
        } else if (f == 'C' && i + 1 < argv.size()) {
          dir = fs_.Resolve(cwd_, argv[++i]);
        } else if (f == 'z' || f == 'j' || f == 'J') {
          *err += "tar: compression (-" + std::string(1, f) +
                  ") is not supported by trimtab local's simulated containers\n";
          return 2;
        } else {
          *err += "tar: invalid option -- '" + std::string(1, f) + "'\n";
          return 2;
        }
      }
      continue;
    }
    operands.push_back(s);
  }
  if (!mode) {
    *err += "tar: need one of -c, -x or -t\n";
    return 2;
  }
  if (mode == 'c') {
    if (operands.empty()) {
      *err += "tar: empty archive\n";
      return 1;
    }
    std::vector<TarEntry> entries;
    int status = 0;
    bool warned = false;
    for (const std::string& operand : operands) {
      const std::string base = fs_.Resolve(dir, operand);
      if (!fs_.Find(base)) {
        *err += "tar: " + operand + ": No such file or directory\n";
        status = 1;
        continue;
      }
      for (const std::string& p : fs_.Walk(base)) {
        // Member names as given (relative to -C), leading '/' removed as GNU tar does.
        std::string name = operand + p.substr(base.size());
        if (!name.empty() && name[0] == '/') {
          if (!warned) *err += "tar: Removing leading `/' from member names\n";
          warned = true;
          name.erase(0, name.find_first_not_of('/'));
        }
        if (name.empty()) continue;
        const SandboxNode* n = fs_.Find(p);
        entries.push_back({.name = name, .directory = n->directory, .mode = n->mode,
                           .mtime = n->mtime, .data = n->data});
        if (verbose) *err += name + "\n";
      }
    }
    const std::string archive = WriteTar(entries);
    if (file.empty() || file == "-") {
      *out += archive;
    } else if (Status s = fs_.WriteFile(fs_.Resolve(cwd_, file), archive, false, now_); !s.ok()) {
      *err += "tar: " + s.message() + "\n";
      return 2;
    }
    return status;
  }
  std::string archive;
  if (file.empty() || file == "-") {
    archive = std::move(*in);
    in->clear();
  } else if (!ReadOperand("tar", file, in, &archive, err)) {
    return 2;
  }
  StatusOr<std::vector<TarEntry>> entries = ReadTar(archive);
  if (!entries.ok()) {
    *err += entries.status().message() + "\n";
    return 2;
  }
  for (const TarEntry& e : *entries) {
    if (mode == 't' || verbose) *(mode == 't' ? out : err) += e.name + "\n";
    if (mode == 't') continue;
    const std::string p = fs_.Resolve(dir, e.name);
    if (p.rfind(dir == "/" ? "/" : dir + "/", 0) != 0 && p != dir) {
      *err += "tar: " + e.name + ": member name outside the destination, skipped\n";
      continue;
    }
    Status s = e.directory ? fs_.MakeDirs(p, e.mtime) : fs_.MakeDirs(fs_.Parent(p), now_);
    if (s.ok() && !e.directory) s = fs_.WriteFile(p, e.data, false, mode == 'x' ? now_ : e.mtime, e.mode);
    if (!s.ok()) {
      *err += "tar: " + s.message() + "\n";
      return 2;
    }
  }
  return 0;
}

ContainerSandbox::ContainerSandbox(const SandboxSetup& setup)
    : fs_(setup.capacity_bytes),
      working_dir_(setup.working_dir.empty() ? "/" : setup.working_dir),
      hostname_(setup.hostname),
      main_command_(setup.main_command) {
  for (const char* d : {"/bin", "/etc", "/tmp", "/root", "/home", "/var", "/usr/bin", "/dev"}) {
    (void)fs_.MakeDirs(d, setup.created);
  }
  for (const std::string& d : setup.dirs) (void)fs_.MakeDirs(SandboxFs::Resolve("/", d), setup.created);
  (void)fs_.MakeDirs(SandboxFs::Resolve("/", working_dir_), setup.created);
  for (const auto& [path, data] : setup.files) {
    const std::string p = SandboxFs::Resolve("/", path);
    (void)fs_.MakeDirs(SandboxFs::Parent(p), setup.created);
    (void)fs_.WriteFile(p, data, false, setup.created);
  }
  env_ = {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
          {"HOME", "/root"},
          {"HOSTNAME", setup.hostname}};
  for (const auto& [k, v] : setup.env) env_[k] = v;
  env_["PWD"] = SandboxFs::Resolve("/", working_dir_);
}

bool ContainerSandbox::ReadsStdin(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string cmd = BaseName(argv[0]);
  if ((cmd == "sh" || cmd == "bash" || cmd == "ash" || cmd == "dash") && argv.size() >= 3 &&
      argv[1] == "-c") {
    StatusOr<std::vector<Token>> tokens = Tokenize(argv[2]);
    if (!tokens.ok()) return false;
    StatusOr<std::vector<Pipeline>> parsed = Parse(*tokens);
    if (!parsed.ok()) return false;
    for (const Pipeline& p : *parsed) {
      if (p.commands.empty()) continue;
      const SimpleCommand& first = p.commands[0];
      bool redirected = false;
      for (const Redirect& r : first.redirects) redirected = redirected || r.op == Op::kIn;
      if (redirected) continue;
      std::vector<std::string> words;
      for (const Word& w : first.words) {
        std::string s;
        for (const Piece& piece : w.pieces) s += piece.variable ? "x" : piece.text;
        words.push_back(s);
      }
      if (CommandReadsStdin(words)) return true;
    }
    return false;
  }
  return CommandReadsStdin(argv);
}

ContainerSandbox::ShellState ContainerSandbox::NewShellState() {
  std::lock_guard<std::mutex> lock(mu_);
  return {.vars = env_, .cwd = SandboxFs::Resolve("/", working_dir_)};
}

ExecResult ContainerSandbox::RunLine(const std::string& line, ShellState* state, int64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  Shell shell(this, now);
  shell.vars_ = state->vars;
  shell.cwd_ = state->cwd;
  ExecResult r = shell.RunScript(line, "");
  state->vars = shell.vars_;
  state->cwd = shell.cwd_;
  state->exited = shell.exited_;
  state->status = r.exit_code;
  return r;
}

bool ContainerSandbox::IsInteractiveShell(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string cmd = BaseName(argv[0]);
  if (cmd != "sh" && cmd != "bash" && cmd != "ash" && cmd != "dash") return false;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "-c" || argv[i].empty() || argv[i][0] != '-') return false;
  }
  return true;
}

ExecResult ContainerSandbox::Run(const std::vector<std::string>& argv,
                                 const std::string& stdin_data, int64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  Shell shell(this, now);
  return shell.RunArgv(argv, stdin_data);
}

}  // namespace trimtab::cluster::exec
