// The tree nodes of a model file (DESIGN.md §6): read from JSON, node by node as the parser meets
// them (Model::Parse), written as JSON or straight as text (Model::ToText), and made from the
// trainer's grown trees, whose text is counted against the model file's limit.
#ifndef RDPKIT_TREES_SRC_MODEL_NODES_H_
#define RDPKIT_TREES_SRC_MODEL_NODES_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "binned_matrix.h"
#include "heap_tree.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::trees::internal {

// "trees[t].nodes[i]", or "trees[t].nodes[i].key": a node's field in messages.
std::string NodeField(int tree, std::size_t node, const char* key = nullptr);
// A finite JSON number, else InvalidArgument naming field.
double FiniteNumber(const nlohmann::json& value, const std::string& field);

// A leaf is {"leaf": value}; a split is
// {"feature": f, "threshold": t, "default_left": b, "left": i, "right": j}. InvalidArgument
// naming trees[tree].nodes[index] (and the member) for anything else.
Node NodeFromJson(const nlohmann::json& json, int tree, std::size_t index);
nlohmann::json TreeToJson(const Tree& tree);
// TreeToJson(tree).dump() appended to out, without building the JSON tree.
void AppendTree(std::string& out, const Tree& tree);
// InvalidArgument naming "out": `what` ("the model", "the trees trained so far") is `bytes` bytes
// of JSON, more than a model file may have (kMaxModelBytes), and what to train instead.
InvalidArgument ModelFileTooLarge(const std::string& what, std::size_t bytes);
// Adds the bytes of tree's text (AppendTree) to *model_bytes, the text of the trees trained so
// far, and returns tree; InvalidArgument naming "out" once they pass the most a model file may
// have (kMaxModelBytes), so that a run whose model could not be written stops there, not after
// its last tree.
Tree CountedTowardsModelFile(Tree tree, std::size_t* model_bytes);
// The model's tree of a grown heap tree: split i at candidate split_bin[i] − 1 of its feature in
// bins, children 2i + 1 and 2i + 2, the leaves' values; without the nodes no row reaches
// (WithoutUnreachableNodes) unless keep_unreachable. Counted by CountedTowardsModelFile.
Tree ModelTreeOf(const HeapTree& tree, const BinnedMatrix& bins, bool keep_unreachable,
                 std::size_t* model_bytes);

// The nodes of a model file's trees, read as the parser meets them (Model::Parse), and the first
// node refused, which FromJsonTaken throws where FromJson would have met it.
struct TakenNodes {
  std::vector<std::vector<Node>> trees;
  std::optional<InvalidArgument> error;
  std::size_t error_tree = 0;
};

// Reads the elements of every trees[t].nodes array into taken (ParseJsonTaking).
JsonArrayTaker NodeTaker(TakenNodes& taken);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_MODEL_NODES_H_
