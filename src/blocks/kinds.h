// One line per block kind: FSGEN_BLOCK_KIND(<kind>) registers the kind defined in
// src/blocks/<kind>/<kind>.cpp (a function `const BlockKind& <kind>_kind()`). The order is
// the power catalog's: a characterisation runs the primitives in it.
FSGEN_BLOCK_KIND(pe_array_os)
FSGEN_BLOCK_KIND(pe_array_rescale)
FSGEN_BLOCK_KIND(pe_array_dot)
FSGEN_BLOCK_KIND(sparse_net)
FSGEN_BLOCK_KIND(acc_cache)
FSGEN_BLOCK_KIND(dma)
FSGEN_BLOCK_KIND(softmax)
FSGEN_BLOCK_KIND(ctrl)
FSGEN_BLOCK_KIND(fused_ctrl)
FSGEN_BLOCK_KIND(csr)
FSGEN_BLOCK_KIND(requant)
FSGEN_BLOCK_KIND(normalise)
FSGEN_BLOCK_KIND(tile_cache)
FSGEN_BLOCK_KIND(op_buffer)
FSGEN_BLOCK_KIND(skew)
FSGEN_BLOCK_KIND(clock_gate)
