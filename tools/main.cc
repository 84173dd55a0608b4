// rdpkit command line. All output is one JSON object on stdout; errors go to stderr with exit
// status 2 (bad input, usage) or 1 (anything else). docs/cli.md documents every flag.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cli.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"

int main(int argc, char** argv) {
  // A short-lived process: freed blocks up to 32 MiB (glibc's largest mmap threshold) stay in
  // its heap instead of going back to the system, so that the PLD probes of a calibration reuse
  // the pages the previous probe touched (about 4 ms of page faults in a 40 ms calibration).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  CLI::App app{"rdpkit: certified Renyi-DP accounting and private gradient-boosted trees"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("rdpkit ") + RDPKIT_VERSION);
  rdpkit::tools::Action action;
  rdpkit::tools::RegisterEpsilon(app, action);
  rdpkit::tools::RegisterDelta(app, action);
  rdpkit::tools::RegisterRdp(app, action);
  rdpkit::tools::RegisterCalibrate(app, action);
  rdpkit::tools::RegisterDpsgd(app, action);
  rdpkit::tools::RegisterSample(app, action);
  rdpkit::tools::RegisterSchema(app, action);
  rdpkit::tools::RegisterTrain(app, action);
  rdpkit::tools::RegisterPredict(app, action);
  rdpkit::tools::RegisterEvaluate(app, action);
  rdpkit::tools::RegisterPlot(app, action);
  // An empty value ("--config ''") is a mistake, never "not given".
  const CLI::Validator non_empty(
      [](const std::string& value) { return value.empty() ? std::string("empty value") : ""; },
      "non-empty", "non-empty");
  for (CLI::App* sub : app.get_subcommands({})) {
    for (CLI::Option* option : sub->get_options({})) {
      if (option->get_type_size_min() > 0) option->check(non_empty);
    }
  }
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->check_name(argv[1]));
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "rdpkit: error: command: unknown subcommand \""
              << rdpkit::Printable(rdpkit::Abbreviate(argv[1])) << "\" (accepted: " << names
              << ")\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
    const int status = action ? action(std::cout) : 2;
    // Output that did not reach its file (a full disk, a closed stream) is a failure, not a
    // silent loss.
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
      std::cerr << "rdpkit: error: cannot write the output to standard output: "
                << std::strerror(errno) << "\n";
      return 1;
    }
    return status;
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
    std::cerr << "rdpkit: error: "
              << rdpkit::Printable(rdpkit::tools::DescribeUsageError(app, error)) << "\n";
    return 2;
  } catch (const rdpkit::InvalidArgument& error) {
    std::cerr << "rdpkit: error: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "rdpkit: error: " << rdpkit::Printable(error.what()) << "\n";
    return 1;
  }
}
