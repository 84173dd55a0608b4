// Event JSON (DESIGN.md §1) as `rdpkit epsilon --event '{...}'` reads it: the command line's JSON
// reader, Event::FromJson, then ε on the fast path at a fixed δ.
//
// Budget: inputs longer than kMaxInputBytes are refused by the harness (not added to the corpus),
// so a slow input is slow because of what it says, not its size. An accepted event must survive
// ToJson → FromJson unchanged, and its fast ε must be a number ≥ 0 (+inf allowed).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli.h"
#include "fuzz_util.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/event.h"

namespace {

constexpr std::size_t kMaxInputBytes = 4096;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using rdpkit::accountant::Event;
  if (size > kMaxInputBytes) return -1;
  const std::string text(rdpkit::fuzz::AsText(data, size));
  // The reader takes text that does not start with '{' for a file name: inline JSON only here.
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return -1;

  rdpkit::fuzz::RefusalsAllowed([&] {
    const Event event = Event::FromJson(rdpkit::tools::ReadEventJson(text));

    const nlohmann::json written = event.ToJson();
    nlohmann::json reread;
    if (!rdpkit::fuzz::RefusalsAllowed([&] { reread = Event::FromJson(written).ToJson(); })) {
      rdpkit::fuzz::Fail("FromJson refused what ToJson wrote", written.dump());
    }
    if (reread != written)
      rdpkit::fuzz::Fail("ToJson -> FromJson changed the event", written.dump());

    const auto result = rdpkit::accountant::Epsilon(event, /*delta=*/1e-5, {.certified = false});
    if (std::isnan(result.epsilon) || result.epsilon < 0) {
      rdpkit::fuzz::Fail("fast epsilon is not a number >= 0", written.dump());
    }
  });
  return 0;
}
