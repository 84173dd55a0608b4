// Shared by calibrate.cc (the solver) and calibrate_json.cc (the "?" placeholder of an event).
#ifndef RDPKIT_ACCOUNTANT_SRC_CALIBRATE_INTERNAL_H_
#define RDPKIT_ACCOUNTANT_SRC_CALIBRATE_INTERNAL_H_

#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {

// No value of the domain meets the target (CalibrateJson reports it as bad input, exit 2).
class UnreachableTarget : public NumericalError {
 public:
  using NumericalError::NumericalError;
};

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_CALIBRATE_INTERNAL_H_
