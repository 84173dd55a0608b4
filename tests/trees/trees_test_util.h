// Helpers shared by the trees test files: a scratch folder, file I/O, quiet training options, a
// tree's depth.
#ifndef RDPKIT_TESTS_TREES_TREES_TEST_UTIL_H_
#define RDPKIT_TESTS_TREES_TREES_TEST_UTIL_H_

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/train.h"

namespace rdpkit::trees::testing {

// The depth of a model tree's deepest leaf, and the feature its nodes split (the last one met;
// −1 for a leaf alone): for trees of one feature.
inline std::pair<int, int> DeepestLeafAndFeature(const Tree& tree) {
  int deepest = 0;
  int feature = -1;
  std::vector<std::pair<int, int>> open = {{0, 0}};  // (node, depth)
  while (!open.empty()) {
    const auto [node, depth] = open.back();
    open.pop_back();
    const Node& n = tree.nodes[static_cast<std::size_t>(node)];
    if (n.is_leaf()) {
      deepest = std::max(deepest, depth);
      continue;
    }
    feature = n.feature;
    open.push_back({n.left, depth + 1});
    open.push_back({n.right, depth + 1});
  }
  return {deepest, feature};
}

// Over a model of one-feature trees: the depth of the deepest tree over `feature`, and of the
// deepest tree over any other feature.
inline std::pair<int, int> DeepestTreesOfAndBesides(const Model& model, int feature) {
  int of = 0;
  int besides = 0;
  for (const Tree& tree : model.trees) {
    const auto [depth, split_feature] = DeepestLeafAndFeature(tree);
    int& deepest = split_feature == feature ? of : besides;
    deepest = std::max(deepest, depth);
  }
  return {of, besides};
}

// A fresh folder under the system temporary folder, removed when the object goes away.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "rdpkit_trees_test_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string File(const std::string& name) const { return (path_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(File(name), std::ios::binary) << text;
    return File(name);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The message of the InvalidArgument that read() throws, or "(no refusal)".
inline std::string Refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "(no refusal)";
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline std::string SourcePath(const std::string& relative) {
  return std::string(RDPKIT_SOURCE_DIR) + "/" + relative;
}

// Training options without progress output; `log` (optional) receives every noise draw.
inline TrainOptions Quiet(std::vector<NoiseRecord>* log = nullptr) {
  TrainOptions o;
  o.progress = false;
  o.noise_log = log;
  return o;
}

// Quiet, with the trees as grown (complete, heap order): for tests that read leaf l of a tree of
// depth d at node 2^d − 1 + l.
inline TrainOptions QuietWholeTrees(std::vector<NoiseRecord>* log = nullptr) {
  TrainOptions o = Quiet(log);
  o.keep_unreachable_nodes = true;
  return o;
}

}  // namespace rdpkit::trees::testing

#endif  // RDPKIT_TESTS_TREES_TREES_TEST_UTIL_H_
