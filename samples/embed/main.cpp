// Embeds a ptoc bundle in a host program through the installed ptorun library:
//   c++ -std=c++17 main.cpp $(pkg-config --cflags --libs ptorun) -o embed
//   ./embed scaled_add.bundle
// Runs the operator y = 0.5 * (a + b) on the simulated Ascend machine and
// checks every output element against the same formula computed here.
#include <ptorun.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s scaled_add.bundle\n", argv[0]);
    return 2;
  }
  std::printf("ptorun %s\n", ptorun_version());
  ptorun_bundle* b = nullptr;
  if (ptorun_load(argv[1], &b) != PTORUN_OK) {
    std::fprintf(stderr, "load failed: %s\n", ptorun_last_error());
    return 1;
  }
  const int64_t rows = 40, cols = 256;
  std::vector<float> a(rows * cols), bb(rows * cols), y(rows * cols);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(i % 13) - 6.0f;
    bb[i] = 0.25f * float(i % 7);
  }
  int64_t shape[2] = {rows, cols};
  int rc = ptorun_set_input(b, "a", PTORUN_FLOAT32, shape, 2, a.data());
  if (rc == PTORUN_OK) rc = ptorun_set_input(b, "b", PTORUN_FLOAT32, shape, 2, bb.data());
  if (rc == PTORUN_OK) rc = ptorun_run(b, nullptr);
  if (rc == PTORUN_OK) rc = ptorun_get_output(b, "y", PTORUN_FLOAT32, y.data(), y.size() * sizeof(float));
  if (rc != PTORUN_OK) {
    std::fprintf(stderr, "error %d: %s\n", rc, ptorun_error(b));
    ptorun_free(b);
    return 1;
  }
  int bad = 0;
  for (size_t i = 0; i < y.size(); ++i)
    if (std::fabs(y[i] - 0.5f * (a[i] + bb[i])) > 1e-6f) ++bad;
  ptorun_summary s;
  ptorun_get_summary(b, &s);
  std::printf("%s: %d of %zu outputs wrong; %llu tasks, operator end-to-end %.2f us (simulated)\n", ptorun_name(b), bad,
              y.size(), (unsigned long long)s.tasks, s.operator_e2e_us);
  // Misuse is reported, not crashed on.
  rc = ptorun_set_input(b, "nope", PTORUN_FLOAT32, shape, 2, a.data());
  std::printf("unknown input -> status %d: %s\n", rc, ptorun_error(b));
  ptorun_free(b);
  return bad == 0 && rc == PTORUN_ERR_USAGE ? 0 : 1;
}
