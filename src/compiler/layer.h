// Lowering of one transformer layer (a ModelConfig) onto a design: the kernel launches
// the fused core runs, tiled to the design, and the work that stays with the host.
//
// Placement (docs/MODELS.md):
//  - Q, K and V projections: one matmul launch with the three weight matrices packed
//    side by side (n = q_width + 2 kv_width), the output projection another; weights are
//    [in][out], activations [token][feature], INT8.
//  - Attention: the fused kernel, head_dim zero-padded to whole tiles of tiling.k (the dot
//    products are unchanged); prefill causal (bidirectional for an encoder), decode one
//    new token against the KV cache in off-chip memory. A sliding window limits the keys
//    a decode step reads. A head_dim above tiling.k runs over its tiles (S summed over them,
//    O one column block at a time) where buffer a has a slot per tile; otherwise, and on a
//    design without the fused kernel (a matmul-only core), attention runs unfused: per query
//    head, S = Q K^T and O = P V as matmuls, the mask and the softmax on the host.
//  - FFN: the fused FFN kernel when hidden fits one reduction tile (hidden <= tiling.k);
//    otherwise W1 and W3 as one matmul launch whose epilogue applies the activation and the
//    gate product (B's W1 and W3 tiles in pairs; a W1 bias folded into the reduction as
//    one more row), then W2 as a matmul launch. On a design without the epilogue (array b
//    joining matmuls, or gated with the n loop outside m) the activation and gate product
//    stay with the host, and the plan's notes say why.
//  - Mixture-of-Experts FFN: the router as a matmul (t x experts x hidden), then each expert's
//    FFN as above over the tokens routed to it (ExpertRouting: uniform, Zipf-skewed or given
//    counts; a decode step's token visits top-k experts); the top-k choice, the tokens'
//    dispatch to their experts and the weighted sum of the experts' outputs are host work.
//  - Norms, RoPE (on the rotated share of head_dim), QK-norm, biases, residual adds, a
//    host-side activation and the head-major re-layout of Q, K and V: host work, stated by
//    elements and off-chip bytes (each op reads and writes its INT8 operands once).
// Dimensions that are not whole tiles are zero-padded (the padding's MACs are counted
// separately); a matmul whose live output tiles exceed the accumulator cache is split
// along n, then m, into launches that fit.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "compiler/matmul.h"
#include "compiler/model_config.h"
#include "generator/graph.h"

namespace fsgen {

enum class KernelKind { kMatmul, kAttention, kFfn };

struct KernelLaunch {
  std::string name;  // q_k_v_proj, attention, o_proj, w1_w3, w2, ffn
  KernelKind kind = KernelKind::kMatmul;
  MatmulProblem matmul;        // kind kMatmul
  AttentionProblem attention;  // kind kAttention
  FfnProblem ffn;              // kind kFfn
  uint32_t count = 1;          // identical launches (a matmul split into pieces)
  uint64_t macs = 0;           // the model's MACs in all `count` launches, padding excluded
  uint64_t padded_macs = 0;    // the MACs the hardware performs for them
  uint64_t least_bytes = 0;    // their least off-chip traffic (compiler/traffic.h), padding excluded
};

struct HostOp {
  std::string name;
  uint64_t elements = 0;  // values processed
  uint64_t bytes = 0;     // off-chip bytes read and written
};

struct LayerPlan {
  std::vector<KernelLaunch> kernels;
  std::vector<HostOp> host;
  std::vector<std::string> notes;  // placement decisions worth telling the architect
};

// How a Mixture-of-Experts router spreads a step's tokens over the experts.
struct ExpertRouting {
  double skew = 0;             // 0: uniform; s > 0: expert i's share in proportion to 1 / (i + 1)^s
  std::vector<double> shares;  // when given: each expert's share (relative counts, from a file)
  std::string name = "uniform";

  // Tokens routed to each expert: tokens x per_token in all, at most `tokens` each (a token's
  // top-k experts are distinct), in proportion to the shares otherwise (largest remainders).
  std::vector<uint32_t> tokens_per_expert(uint32_t tokens, uint32_t experts, uint32_t per_token) const;
};

struct LayerWorkload {
  Stage stage = Stage::kPrefill;
  uint32_t tokens = 1;   // prefill: prompt tokens; decode: new tokens in this step (1)
  uint32_t context = 0;  // decode: tokens already in the KV cache
  uint32_t layer = 0;    // which layer (windows and experts may differ by layer)
  ExpertRouting routing;
  // The attention block alone (input norm, Q/K/V, attention, O, residual), without the FFN:
  // a multi-head attention layer, the paper's DSE benchmarks.
  bool attention_only = false;
};

// UserError (naming the model, the design and the rule) when a layer cannot run on the
// design: an encoder asked to decode,
// a prefill longer than the sliding window, 16-bit register limits.
LayerPlan lower_layer(const Graph& g, const ModelConfig& m, const LayerWorkload& w);

}  // namespace fsgen
