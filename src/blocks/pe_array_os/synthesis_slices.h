// A wide broadcast output-stationary array synthesised as side-by-side column slices.
//
// In a broadcast fsgen_array_os with one lane per row and column, column j's PEs read w's
// byte j and drive rd_data's word j, and every column reads the same x, alpha and controls:
// C columns are C / CS arrays of CS columns side by side. Synthesising one slice and
// instantiating it C / CS times gives the same logic as the flat array's but for the read
// row's decode, which each slice holds a copy of, with one slice through Yosys' synthesis and
// ABC (an 8x128 rescaling array synthesised flat passed 15 GB of Yosys before mapping; its
// 8x16 slice held 5.8 GB). The mapped netlist keeps the instances (Yosys' flatten of the 8x128
// array's two million cells ran out of 24 GB): fsgen's netlist reader (read_netlist_json)
// expands them (docs/POWER.md, "Wide arrays as column slices").
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fsgen {

// Columns of a slice: the widest array the power catalogs characterise flat.
inline constexpr int64_t kSliceColumns = 16;

struct ColumnSlices {
  std::string module;                     // the wrapper: fsgen_array_os_slices
  std::string verilog;                    // its text, which instantiates fsgen_array_os
  std::map<std::string, int64_t> params;  // its parameters (the array's, and CS)
};

// The slices of fsgen_array_os with `params` (R, C, RESCALE, SYSTOLIC, LM, LN; absent ones at
// the module's defaults) when it is a broadcast array of one lane each wider than
// kSliceColumns columns, C a multiple of them; none for any other module or array.
std::optional<ColumnSlices> array_column_slices(const std::string& module,
                                                const std::map<std::string, int64_t>& params);

}  // namespace fsgen
