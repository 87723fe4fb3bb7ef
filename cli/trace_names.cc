#include "cli/trace_names.h"

#include <initializer_list>
#include <regex>

namespace chess::cli {
namespace {

std::string Basename(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  return base.empty() ? path : base;
}

bool IsInterpreter(const std::string& name) {
  // python3, python3.11, perl5.36, ruby3.1, node, bash…: a version may follow the name.
  static const std::regex kInterpreters(
      "(python|pypy|perl|ruby|node|nodejs|bash|sh|dash|zsh|ksh|mksh|fish|php|lua|luajit|tclsh|Rscript)[0-9.]*");
  return std::regex_match(name, kInterpreters);
}

// Options of `interpreter` that take the next argument as their value (python3 -W error,
// bash -o pipefail, node -r ts-node/register, ruby -I lib). Perl's are attached (-Ilib).
bool TakesValue(const std::string& interpreter, const std::string& option) {
  auto is = [&](std::initializer_list<const char*> names) {
    for (const char* name : names) {
      if (option == name) return true;
    }
    return false;
  };
  if (interpreter.rfind("python", 0) == 0 || interpreter.rfind("pypy", 0) == 0) return is({"-W", "-X"});
  if (interpreter.rfind("node", 0) == 0) return is({"-r", "--require"});
  if (interpreter.rfind("ruby", 0) == 0) return is({"-I", "-r"});
  return is({"-o", "+o", "-O", "+O"});  // the shells
}

// The script an interpreter runs, or "" when it runs none (code from -c/-e, standard input).
std::string ScriptOf(const std::vector<std::string>& command) {
  const std::string interpreter = Basename(command.front());
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& arg = command[i];
    if (arg == "-c" || arg == "-e" || arg == "-" || arg == "--eval" || arg == "--print") return "";
    if (arg == "-m") return i + 1 < command.size() ? command[i + 1] : "";
    if (arg == "--") return i + 1 < command.size() ? Basename(command[i + 1]) : "";
    if (TakesValue(interpreter, arg)) {
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] == '-' || arg[0] == '+') continue;
    return Basename(arg);
  }
  return "";
}

// java -jar app.jar → app.jar; java [-cp path] [-Dx=y…] Main → Main.
std::string JavaMain(const std::vector<std::string>& command) {
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& arg = command[i];
    if (arg == "-jar") return i + 1 < command.size() ? Basename(command[i + 1]) : "";
    if (arg == "-cp" || arg == "-classpath" || arg == "--class-path" || arg == "-p" || arg == "--module-path") {
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    return arg;
  }
  return "";
}

}  // namespace

std::string TraceStem(const std::vector<std::string>& command) {
  size_t start = 0;
  // env [-i] [NAME=value]… PROGRAM: the program is what env runs.
  while (start < command.size() && Basename(command[start]) == "env") {
    ++start;
    while (start < command.size() &&
           (command[start].rfind('-', 0) == 0 || command[start].find('=') != std::string::npos)) {
      ++start;
    }
  }
  if (start >= command.size()) return "program";
  const std::vector<std::string> program(command.begin() + static_cast<std::ptrdiff_t>(start), command.end());
  const std::string name = Basename(program.front());
  std::string script;
  if (name == "java") {
    script = JavaMain(program);
  } else if (IsInterpreter(name)) {
    script = ScriptOf(program);
  }
  if (!script.empty()) return script;
  return name.empty() ? "program" : name;
}

}  // namespace chess::cli
