#include "runtime/error_status.h"

#include <stdexcept>

#include "runtime/control_flow.h"
#include "runtime/core/tensor_data.h"
#include "runtime/gm_arena.h"
#include "runtime/program/bind_dims.h"
#include "runtime/program/bundle.h"
#include "runtime/session.h"

namespace ptoc::runtime {

ExitCode exit_code_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const UsageError&) {
    return kExitUsage;
  } catch (const BindError&) {
    return kExitUsage;  // a dim or input shape that does not fit the bundle's declarations
  } catch (const EnvError&) {
    return kExitEnv;
  } catch (const NpyError&) {
    return kExitUsage;  // an input file that does not fit its tensor (dtype, rank, shape) or is not .npy
  } catch (const BundleError&) {
    return kExitError;
  } catch (const ControlFlowError&) {
    return kExitError;
  } catch (const GmError&) {
    return kExitError;
  } catch (const std::runtime_error&) {
    // The simulated machine or the NPU launcher stopped (a cycle in a task graph, an ACL call).
    return kExitError;
  } catch (...) {
    return kExitInternal;
  }
}

}  // namespace ptoc::runtime
