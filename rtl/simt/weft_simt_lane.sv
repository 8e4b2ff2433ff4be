// weft_simt_lane: the execute stage of one thread of the SIMT core (combinational).
//
// Given the instruction, the thread's pc and its two operands (rs1, rs2; for ECALL a7 and a0),
// computes what the thread does: the rd value of single-cycle instructions (ALU, MUL*, LUI,
// AUIPC, JAL/JALR links, CSR reads), the next pc, the data address of loads and stores, exit and
// barrier, or a fault with its code and tval (docs/simt-model.md "Errors"). Loads and DIV/REM
// only have their checks and address here: the load/store unit and the shared divider produce
// their results later (res_o.we is low for them).
`include "weft_simt_types.svh"

module weft_simt_lane #(
  parameter int DmemBytes = 65536
) (
  input  logic [31:0]         insn_i,
  input  logic [31:0]         pc_i,
  input  logic [31:0]         a_i,        // rs1 (a7 for ECALL)
  input  logic [31:0]         b_i,        // rs2 (a0 for ECALL)
  input  logic                mul_a_signed_i,  // a MUL* treats rs1 as signed (MULH, MULHSU) ...
  input  logic                mul_b_signed_i,  // ... and rs2 (MULH): decoded in OF
  input  logic [31:0]         csr_val_i,  // value of read-only CSR 0xCC0 + insn_i[22:20]
  output weft_simt_lane_res_t res_o       // its result, next pc, address, exit, barrier, fault
);

  // docs/simt-model.md error codes.
  localparam logic [7:0] ErrIllegal      = 8'd1;
  localparam logic [7:0] ErrBreakpoint   = 8'd2;
  localparam logic [7:0] ErrFetchAlign   = 8'd3;
  localparam logic [7:0] ErrLoadAlign    = 8'd5;
  localparam logic [7:0] ErrLoadRange    = 8'd6;
  localparam logic [7:0] ErrStoreAlign   = 8'd7;
  localparam logic [7:0] ErrStoreRange   = 8'd8;
  localparam logic [7:0] ErrEcall        = 8'd9;
  localparam logic [31:0] SyscallExit    = 32'd93;

  weft_simt_dec_t dec;

  weft_simt_decode u_dec (
    .insn_i (insn_i),
    .dec_o  (dec)
  );

  logic unused_dec;
  assign unused_dec = dec.uses_rs1 ^ dec.uses_rs2 ^ dec.is_div;

  logic [2:0]  f3;
  logic        op_reg;   // OP (register-register) rather than OP-IMM
  logic [31:0] op2;
  logic [4:0]  shamt;
  logic [31:0] alu;
  logic [65:0] prod;
  logic [31:0] mulres;
  logic        taken;
  logic [31:0] target;
  logic [31:0] addr;      // load/store address
  logic [32:0] end_addr;  // address + size, 33 bits (no wrap-around)
  logic        misaligned;

  assign f3     = insn_i[14:12];
  assign op_reg = insn_i[5];
  assign op2    = op_reg ? b_i : dec.imm;
  assign shamt  = op2[4:0];

  // RV32I OP-IMM / OP (ISA 2.4).
  always_comb begin : p_alu
    unique case (f3)
      3'b000:  alu = (op_reg && insn_i[30]) ? a_i - op2 : a_i + op2;
      3'b001:  alu = a_i << shamt;
      3'b010:  alu = {31'd0, $signed(a_i) < $signed(op2)};
      3'b011:  alu = {31'd0, a_i < op2};
      3'b100:  alu = a_i ^ op2;
      3'b101:  alu = insn_i[30] ? 32'($signed(a_i) >>> shamt) : a_i >> shamt;
      3'b110:  alu = a_i | op2;
      default: alu = a_i & op2;
    endcase
  end

  // RV32M multiplications (ISA 7.1): one 33 x 33 signed product covers all four. The operands'
  // signedness comes decoded from OF (a register), not from insn_i here: the multiplier's inputs
  // are then one LUT from the EX register.
  assign prod     = 66'($signed({mul_a_signed_i & a_i[31], a_i}) *
                        $signed({mul_b_signed_i & b_i[31], b_i}));
  assign mulres   = (f3 == 3'b000) ? prod[31:0] : prod[63:32];

  logic unused_prod;
  assign unused_prod = ^prod[65:64];

  // Branch condition (ISA 2.5).
  always_comb begin : p_branch
    unique case (f3)
      3'b000:  taken = (a_i == b_i);
      3'b001:  taken = (a_i != b_i);
      3'b100:  taken = $signed(a_i) < $signed(b_i);
      3'b101:  taken = $signed(a_i) >= $signed(b_i);
      3'b110:  taken = a_i < b_i;
      default: taken = a_i >= b_i;
    endcase
  end

  assign target   = dec.is_jalr ? ((a_i + dec.imm) & ~32'd1) : pc_i + dec.imm;
  assign addr     = a_i + dec.imm;
  assign end_addr = {1'b0, addr} + 33'({f3[1], f3[0] & !f3[1], !f3[1] & !f3[0]});
  assign misaligned = (f3[0] && addr[0]) || (f3[1] && (addr[1:0] != 2'b00));

  always_comb begin : p_exec
    res_o         = '0;
    res_o.next_pc = pc_i + 32'd4;
    res_o.addr    = addr;
    if (dec.illegal) begin
      res_o.fault      = 1'b1;
      res_o.fault_code = ErrIllegal;
      res_o.fault_tval = insn_i;
    end else if (dec.is_lui || dec.is_auipc) begin
      res_o.we    = 1'b1;
      res_o.wdata = dec.is_lui ? dec.imm : pc_i + dec.imm;
    end else if (dec.is_jal || dec.is_jalr || (dec.is_branch && taken)) begin
      if (target[1:0] != 2'b00) begin  // reported at the jump, rd not written (ISA 2.5)
        res_o.fault      = 1'b1;
        res_o.fault_code = ErrFetchAlign;
        res_o.fault_tval = target;
      end else begin
        res_o.we      = !dec.is_branch;
        res_o.wdata   = pc_i + 32'd4;
        res_o.next_pc = target;
      end
    end else if (dec.is_alu) begin
      res_o.we    = 1'b1;
      res_o.wdata = alu;
    end else if (dec.is_mul) begin
      res_o.we    = 1'b1;
      res_o.wdata = mulres;
    end else if (dec.is_load || dec.is_store) begin
      if (misaligned) begin
        res_o.fault      = 1'b1;
        res_o.fault_code = dec.is_load ? ErrLoadAlign : ErrStoreAlign;
        res_o.fault_tval = addr;
      end else if (end_addr > 33'(DmemBytes)) begin
        res_o.fault      = 1'b1;
        res_o.fault_code = dec.is_load ? ErrLoadRange : ErrStoreRange;
        res_o.fault_tval = addr;
      end
    end else if (dec.is_csr) begin
      res_o.we      = 1'b1;
      res_o.wdata   = (insn_i[31:20] == 12'h8C0) ? 32'd0 : csr_val_i;  // the barrier CSR reads 0
      res_o.barrier = dec.csr_barrier;
    end else if (dec.is_ecall) begin
      if (a_i == SyscallExit) begin
        res_o.exit = 1'b1;
      end else begin
        res_o.fault      = 1'b1;
        res_o.fault_code = ErrEcall;
        res_o.fault_tval = a_i;
      end
    end else if (dec.is_ebreak) begin
      res_o.fault      = 1'b1;
      res_o.fault_code = ErrBreakpoint;
      res_o.fault_tval = pc_i;
    end
    // FENCE and (not taken) branches: nothing but pc + 4. DIV/REM: the divider writes rd.
    if (!dec.writes_rd) res_o.we = 1'b0;
  end

endmodule
