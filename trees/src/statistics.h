// The per-record statistics the trainer sums and releases, and the rows' working state.
#ifndef RDPKIT_TREES_SRC_STATISTICS_H_
#define RDPKIT_TREES_SRC_STATISTICS_H_

namespace rdpkit::trees::internal {

// One record's statistics, or their sum over a cell of rows: a is the gradient-type statistic
// (the label for averaging), b the Hessian-type one (the count for gradient and averaging).
struct Pair {
  double a = 0;
  double b = 0;
  Pair& operator+=(const Pair& o) {
    a += o.a;
    b += o.b;
    return *this;
  }
};
inline Pair operator-(Pair x, const Pair& y) { return {x.a - y.a, x.b - y.b}; }
inline Pair operator+(Pair x, const Pair& y) { return {x.a + y.a, x.b + y.b}; }

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_STATISTICS_H_
