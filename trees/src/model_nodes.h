// The tree nodes of a model file (DESIGN.md §6): read from JSON, node by node as the parser meets
// them (Model::Parse), and written as JSON or straight as text (Model::ToText).
#ifndef RDPKIT_TREES_SRC_MODEL_NODES_H_
#define RDPKIT_TREES_SRC_MODEL_NODES_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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
