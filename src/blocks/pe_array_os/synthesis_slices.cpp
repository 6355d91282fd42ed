#include "blocks/pe_array_os/synthesis_slices.h"

namespace fsgen {

namespace {

// The ports are fsgen_array_os's with SYSTOLIC = 0 and LM = LN = 1: the wrapper stands in
// for the array, its netlist renamed to the array's after flattening.
const char* const kSlicesVerilog =
    R"(// fsgen_array_os as C / CS broadcast arrays of CS columns side by side (synthesis only:
// src/blocks/pe_array_os/synthesis_slices.h).
module fsgen_array_os_slices #(
    parameter R = 8,
    parameter C = 32,
    parameter CS = 16,
    parameter RESCALE = 0
) (
    input  wire            clk,
    input  wire            rst_n,
    input  wire            en,
    input  wire            clr,
    input  wire            sc,
    input  wire [R*32-1:0] alpha,
    input  wire [R*8-1:0]  x,
    input  wire [C*8-1:0]  w,
    input  wire [7:0]      rd_row,
    output wire [C*32-1:0] rd_data
);
  genvar s;
  generate
    for (s = 0; s < C / CS; s = s + 1) begin : slice
      fsgen_array_os #(.R(R), .C(CS), .RESCALE(RESCALE), .SYSTOLIC(0), .LM(1), .LN(1)) u (
          .clk(clk), .rst_n(rst_n), .en(en), .clr(clr), .sc(sc), .alpha(alpha), .x(x),
          .w(w[s*CS*8 +: CS*8]), .rd_row(rd_row), .rd_data(rd_data[s*CS*32 +: CS*32]));
    end
  endgenerate
endmodule
)";

int64_t param_or(const std::map<std::string, int64_t>& params, const std::string& name, int64_t otherwise) {
  const auto it = params.find(name);
  return it == params.end() ? otherwise : it->second;
}

}  // namespace

std::optional<ColumnSlices> array_column_slices(const std::string& module,
                                                const std::map<std::string, int64_t>& params) {
  if (module != "fsgen_array_os") return std::nullopt;
  // fsgen_array_os.v's defaults
  const int64_t c = param_or(params, "C", 8);
  if (param_or(params, "SYSTOLIC", 0) != 0 || param_or(params, "LM", 1) != 1 || param_or(params, "LN", 1) != 1 ||
      c <= kSliceColumns || c % kSliceColumns != 0)
    return std::nullopt;
  ColumnSlices s;
  s.module = "fsgen_array_os_slices";
  s.verilog = kSlicesVerilog;
  s.params = {
      {"R", param_or(params, "R", 8)}, {"C", c}, {"CS", kSliceColumns}, {"RESCALE", param_or(params, "RESCALE", 0)}};
  return s;
}

}  // namespace fsgen
