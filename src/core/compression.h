// Memory-value sparsity (compression, paper section 4.2.3): the DMA skips the rows of a
// compressed operand tile that are all zeros. Each tile of the operand has a metadata
// record of one bit per tile row (bit r of byte r / 8: row r holds a non-zero byte and is
// fetched), padded to whole memory beats; the records follow the tiles in row-major tile
// order (tile (tr, tc) of a tiles_r x tiles_c grid is record tr * tiles_c + tc). The
// controller reads a tile's record before the tile, then fetches only the marked rows
// and clears the others in its buffer.
#pragma once
#include <cstdint>
#include <vector>

namespace fsgen {

// Bytes of one tile's record: ceil(tile_rows / 8) rounded up to whole beats.
uint32_t metadata_record_bytes(uint32_t tile_rows, uint32_t beat_bytes);

// The records of a rows x cols row-major INT8 matrix cut into tile_rows x tile_cols tiles.
std::vector<int8_t> row_metadata(const std::vector<int8_t>& m, uint32_t rows, uint32_t cols, uint32_t tile_rows,
                                 uint32_t tile_cols, uint32_t beat_bytes);

}  // namespace fsgen
