// weft_assert.svh: portable checks shared by every Weft module.
//
// WEFT_ELAB_ERROR(msg): reject an illegal parameter value at elaboration. Verilator and Yosys
// accept an elaboration-time $error inside a generate-if; Icarus 11 does not, so there the
// check instantiates a module that does not exist, whose name tells what happened (the
// message itself is in the source line Icarus points at).
// Use: if (Depth < 1) begin : g_bad_depth `WEFT_ELAB_ERROR("weft_fifo: Depth must be >= 1") end
`ifndef WEFT_ASSERT_SVH
`define WEFT_ASSERT_SVH

`ifdef __ICARUS__
`define WEFT_ELAB_ERROR(msg) weft_illegal_parameter_value u_illegal_parameter_value ();
`else
`define WEFT_ELAB_ERROR(msg) $error(msg);
`endif

`endif  // WEFT_ASSERT_SVH
