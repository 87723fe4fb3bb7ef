// What explore names a trace file after: the program a person would say the command runs. For
// an interpreter running a script that is the script, not the interpreter: `explore -- python3
// worker_pool.py` saves worker_pool.py-deadlock-12.trace, not python3-deadlock-12.trace.
#pragma once

#include <string>
#include <vector>

namespace chess::cli {

// "worker_pool.py" for python3 worker_pool.py; "app.jar" for java -jar app.jar; "Main" for
// java -cp build Main; "json.tool" for python3 -m json.tool; the interpreter itself when it
// runs code given on its command line (sh -c '…', perl -e '…'); through `env [NAME=value]…`.
// Otherwise the program's basename; "program" when there is nothing to go by.
std::string TraceStem(const std::vector<std::string>& command);

}  // namespace chess::cli
