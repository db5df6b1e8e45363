// The C API of ptorun.h over runtime::Session. Every entry point catches
// everything: a host program gets a status code and a message, never an exception.
#include <cstring>
#include <memory>
#include <string>

#include "runtime/program/bind_dims.h"
#include "runtime/capi/ptorun.h"
#include "runtime/control_flow.h"
#include "runtime/gm_arena.h"
#include "runtime/error_status.h"
#include "runtime/session.h"

// The C API returns the same codes as the ptorun command (runtime/core/exit_codes.h).
static_assert(PTORUN_OK == ptoc::kExitOk && PTORUN_ERR_BUNDLE == ptoc::kExitError &&
              PTORUN_ERR_USAGE == ptoc::kExitUsage && PTORUN_ERR_ENV == ptoc::kExitEnv);

struct ptorun_bundle {
  std::unique_ptr<ptoc::runtime::Session> session;
  std::string error;
};

namespace {

thread_local std::string g_last_error;

int fail(ptorun_bundle* b, int code, const std::string& msg) {
  g_last_error = msg;
  if (b) b->error = msg;
  return code;
}

// Runs `f`, mapping the runtime's exceptions onto the status codes.
template <typename F>
int guarded(ptorun_bundle* b, F&& f) {
  using namespace ptoc;
  try {
    f();
    return PTORUN_OK;
  } catch (const std::exception& e) {
    return fail(b, runtime::exit_code_of(std::current_exception()), e.what());
  } catch (...) {
    return fail(b, PTORUN_ERR_INTERNAL, "internal error: unknown exception");
  }
}

// Element size of the caller's buffer for `d`.
size_t host_size(ptorun_dtype d) {
  switch (d) {
    case PTORUN_INT64: return 8;
    case PTORUN_FLOAT32: case PTORUN_INT32: return 4;
    case PTORUN_FLOAT16: return 2;
    default: return 1;
  }
}

bool accepts(ptoc::DType tensor, ptorun_dtype d) {
  using ptoc::DType;
  switch (d) {
    case PTORUN_FLOAT32: return ptoc::dtype_is_float(tensor);
    case PTORUN_FLOAT16: return tensor == DType::fp16;
    case PTORUN_INT32: return tensor == DType::int32;
    case PTORUN_INT8: return tensor == DType::int8;
    case PTORUN_UINT8: return tensor == DType::uint8;
    case PTORUN_BOOL: return tensor == DType::boolean;
    case PTORUN_INT64: return tensor == DType::int64;
  }
  return false;
}

double load_elem(const void* data, ptorun_dtype d, int64_t i) {
  switch (d) {
    case PTORUN_FLOAT32: return double(static_cast<const float*>(data)[i]);
    case PTORUN_FLOAT16: return double(ptoc::half_to_float(static_cast<const uint16_t*>(data)[i]));
    case PTORUN_INT32: return double(static_cast<const int32_t*>(data)[i]);
    case PTORUN_INT8: return double(static_cast<const int8_t*>(data)[i]);
    case PTORUN_UINT8: return double(static_cast<const uint8_t*>(data)[i]);
    case PTORUN_BOOL: return static_cast<const uint8_t*>(data)[i] ? 1.0 : 0.0;
    case PTORUN_INT64: return double(static_cast<const int64_t*>(data)[i]);
  }
  return 0;
}

void store_elem(void* data, ptorun_dtype d, int64_t i, double v) {
  switch (d) {
    case PTORUN_FLOAT32: static_cast<float*>(data)[i] = float(v); break;
    case PTORUN_FLOAT16: static_cast<uint16_t*>(data)[i] = ptoc::float_to_half(float(v)); break;
    case PTORUN_INT32: static_cast<int32_t*>(data)[i] = int32_t(v); break;
    case PTORUN_INT8: static_cast<int8_t*>(data)[i] = int8_t(v); break;
    case PTORUN_UINT8: static_cast<uint8_t*>(data)[i] = uint8_t(v); break;
    case PTORUN_BOOL: static_cast<uint8_t*>(data)[i] = v != 0; break;
    case PTORUN_INT64: static_cast<int64_t*>(data)[i] = int64_t(v); break;
  }
}

}  // namespace

extern "C" {

const char* ptorun_version(void) {
  static const std::string v = std::string(PTOC_VERSION) + " (bundle format " + std::to_string(PTOC_BUNDLE_FORMAT_VERSION) + ")";
  return v.c_str();
}

const char* ptorun_last_error(void) { return g_last_error.c_str(); }

int ptorun_load(const char* path, ptorun_bundle** out) {
  if (!out) return fail(nullptr, PTORUN_ERR_USAGE, "ptorun_load: out is NULL");
  *out = nullptr;
  if (!path) return fail(nullptr, PTORUN_ERR_USAGE, "ptorun_load: path is NULL");
  auto b = std::make_unique<ptorun_bundle>();
  int rc = guarded(nullptr, [&] { b->session = std::make_unique<ptoc::runtime::Session>(path); });
  if (rc == PTORUN_OK) *out = b.release();
  return rc;
}

void ptorun_free(ptorun_bundle* b) { delete b; }

const char* ptorun_error(const ptorun_bundle* b) { return b ? b->error.c_str() : g_last_error.c_str(); }

const char* ptorun_name(const ptorun_bundle* b) { return b ? b->session->program().name.c_str() : nullptr; }

int ptorun_num_inputs(const ptorun_bundle* b) { return b ? int(b->session->input_names().size()) : 0; }
int ptorun_num_outputs(const ptorun_bundle* b) { return b ? int(b->session->output_names().size()) : 0; }

static const char* nth_name(const ptorun_bundle* b, int i, ptoc::GmTensor::Role role) {
  if (!b || i < 0) return nullptr;
  int k = 0;
  for (const auto& t : b->session->program().tensors)
    if (t.role == role && k++ == i) return t.name.c_str();
  return nullptr;
}
const char* ptorun_input_name(const ptorun_bundle* b, int i) { return nth_name(b, i, ptoc::GmTensor::Role::Input); }
const char* ptorun_output_name(const ptorun_bundle* b, int i) { return nth_name(b, i, ptoc::GmTensor::Role::Output); }

int ptorun_set_dim(ptorun_bundle* b, const char* name, int64_t value) {
  if (!b || !name) return fail(b, PTORUN_ERR_USAGE, "ptorun_set_dim: NULL argument");
  return guarded(b, [&] { b->session->set_dim(name, value); });
}

int ptorun_set_input(ptorun_bundle* b, const char* name, ptorun_dtype dtype, const int64_t* shape, int rank,
                     const void* data) {
  if (!b || !name || (!shape && rank > 0) || !data) return fail(b, PTORUN_ERR_USAGE, "ptorun_set_input: NULL argument");
  return guarded(b, [&] {
    int idx = b->session->input_index(name);
    ptoc::DType dt = b->session->program().tensors[size_t(idx)].dtype;
    if (!accepts(dt, dtype))
      throw ptoc::runtime::UsageError(std::string("input ") + name + " is " + std::string(ptoc::dtype_name(dt)) +
                                      ": pass PTORUN_FLOAT32 (or PTORUN_FLOAT16 for fp16) for float tensors and the "
                                      "matching integer type otherwise");
    if (rank < 0 || rank > 8) throw ptoc::runtime::UsageError("ptorun_set_input: rank must be 0..8");
    auto t = ptoc::TensorData::zeros(dt, std::vector<int64_t>(shape, shape + rank));
    if (dtype == PTORUN_INT64 && t.numel() > 0)  // bit-exact, not through double
      std::memcpy(t.bytes.data(), data, size_t(t.numel()) * 8);
    else
      for (int64_t i = 0; i < t.numel(); ++i) t.set(i, load_elem(data, dtype, i));
    b->session->set_input(name, std::move(t));
  });
}

int ptorun_run(ptorun_bundle* b, const ptorun_options* o) {
  if (!b) return fail(nullptr, PTORUN_ERR_USAGE, "ptorun_run: bundle is NULL");
  return guarded(b, [&] {
    ptoc::runtime::RunConfig cfg;
    if (o) {
      if (o->backend) cfg.backend = o->backend;
      if (o->platform) cfg.platform = o->platform;
      cfg.seed = o->seed;
      cfg.rounds = o->rounds > 0 ? o->rounds : 1;
      cfg.jobs = o->jobs;
    }
    b->session->run(cfg);
  });
}

int ptorun_output_shape(const ptorun_bundle* b, const char* name, int64_t* shape, int* rank) {
  if (!b || !name || !shape || !rank) return fail(const_cast<ptorun_bundle*>(b), PTORUN_ERR_USAGE, "ptorun_output_shape: NULL argument");
  auto* mb = const_cast<ptorun_bundle*>(b);
  return guarded(mb, [&] {
    auto t = b->session->output(name);
    *rank = int(t.shape.size());
    for (size_t i = 0; i < t.shape.size() && i < 8; ++i) shape[i] = t.shape[i];
  });
}

int ptorun_get_output(const ptorun_bundle* b, const char* name, ptorun_dtype dtype, void* data, size_t bytes) {
  auto* mb = const_cast<ptorun_bundle*>(b);
  if (!b || !name || !data) return fail(mb, PTORUN_ERR_USAGE, "ptorun_get_output: NULL argument");
  return guarded(mb, [&] {
    auto t = b->session->output(name);
    if (!accepts(t.dtype, dtype))
      throw ptoc::runtime::UsageError(std::string("output ") + name + " is " + std::string(ptoc::dtype_name(t.dtype)) +
                                      ": read it as PTORUN_FLOAT32 (float tensors) or the matching integer type");
    size_t need = size_t(t.numel()) * host_size(dtype);
    if (bytes != need)
      throw ptoc::runtime::UsageError(std::string("output ") + name + " needs a buffer of " + std::to_string(need) +
                                      " bytes, got " + std::to_string(bytes));
    if (dtype == PTORUN_INT64 && t.numel() > 0)
      std::memcpy(data, t.bytes.data(), need);
    else
      for (int64_t i = 0; i < t.numel(); ++i) store_elem(data, dtype, i, t.get(i));
  });
}

int ptorun_get_summary(const ptorun_bundle* b, ptorun_summary* out) {
  auto* mb = const_cast<ptorun_bundle*>(b);
  if (!b || !out) return fail(mb, PTORUN_ERR_USAGE, "ptorun_get_summary: NULL argument");
  return guarded(mb, [&] {
    const auto& r = b->session->result();
    const auto& s = r.trace.rounds.back().summary;
    out->aicore_e2e_us = ptoc::sim::Trace::us(s.aicore_e2e_ps);
    out->aicore_utilization = s.aicore_utilization;
    out->operator_e2e_us = ptoc::sim::Trace::us(s.operator_e2e_ps);
    out->tasks = s.tasks ? s.tasks : r.tasks;
    out->device_tasks = s.device_tasks ? s.device_tasks : r.device_tasks;
  });
}

}  // extern "C"
