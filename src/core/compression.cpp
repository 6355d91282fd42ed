#include "core/compression.h"

#include <cstddef>

namespace fsgen {

uint32_t metadata_record_bytes(uint32_t tile_rows, uint32_t beat_bytes) {
  const uint32_t bytes = (tile_rows + 7) / 8;
  return (bytes + beat_bytes - 1) / beat_bytes * beat_bytes;
}

std::vector<int8_t> row_metadata(const std::vector<int8_t>& m, uint32_t rows, uint32_t cols, uint32_t tile_rows,
                                 uint32_t tile_cols, uint32_t beat_bytes) {
  const uint32_t record = metadata_record_bytes(tile_rows, beat_bytes);
  const uint32_t tiles_r = rows / tile_rows, tiles_c = cols / tile_cols;
  std::vector<int8_t> meta(std::size_t(tiles_r) * tiles_c * record, 0);
  for (uint32_t tr = 0; tr < tiles_r; ++tr)
    for (uint32_t tc = 0; tc < tiles_c; ++tc) {
      uint8_t* rec = reinterpret_cast<uint8_t*>(meta.data()) + (std::size_t(tr) * tiles_c + tc) * record;
      for (uint32_t r = 0; r < tile_rows; ++r) {
        const int8_t* row = m.data() + std::size_t(tr * tile_rows + r) * cols + std::size_t(tc) * tile_cols;
        bool nonzero = false;
        for (uint32_t c = 0; c < tile_cols && !nonzero; ++c) nonzero = row[c] != 0;
        if (nonzero) rec[r / 8] |= uint8_t(1u << (r % 8));
      }
    }
  return meta;
}

}  // namespace fsgen
