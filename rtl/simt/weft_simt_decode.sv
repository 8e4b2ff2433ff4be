// weft_simt_decode: RV32IM + Weft Zicsr instruction decoder of the SIMT core (combinational).
//
// Classifies one instruction word, says which register operands it reads and whether it writes
// rd, and assembles its immediate (ISA v20191213 2.3, Figure 2.4). Everything that
// docs/simt-model.md calls illegal raises illegal_o: unknown opcodes and funct fields, bits[1:0]
// != 11, RV64 shift immediates, FENCE.I, SYSTEM words other than ECALL/EBREAK/CSR*, CSRs other
// than 0xCC0..0xCC7 and 0x8C0, and writes to the read-only 0xCC0..0xCC7.
// Used twice per issue: in the operand-read stage (operands, hazards) and by every lane of the
// execute stage (weft_simt_lane), so the lanes need no decoded bus from the core.
module weft_simt_decode (
  input  logic [31:0] insn_i,
  output logic        illegal_o,
  output logic        is_lui_o,
  output logic        is_auipc_o,
  output logic        is_jal_o,
  output logic        is_jalr_o,
  output logic        is_branch_o,
  output logic        is_load_o,
  output logic        is_store_o,
  output logic        is_alu_o,      // OP-IMM or OP with funct7 0 / 0x20
  output logic        is_mul_o,      // MUL, MULH, MULHSU, MULHU
  output logic        is_div_o,      // DIV, DIVU, REM, REMU (the shared divider)
  output logic        is_ecall_o,
  output logic        is_ebreak_o,
  output logic        is_csr_o,      // a legal CSR access
  output logic        csr_barrier_o, // a write to CSR 0x8C0
  output logic [31:0] imm_o,
  output logic        uses_rs1_o,
  output logic        uses_rs2_o,
  output logic        writes_rd_o
);

  localparam logic [6:0] OpLui    = 7'b0110111;
  localparam logic [6:0] OpAuipc  = 7'b0010111;
  localparam logic [6:0] OpJal    = 7'b1101111;
  localparam logic [6:0] OpJalr   = 7'b1100111;
  localparam logic [6:0] OpBranch = 7'b1100011;
  localparam logic [6:0] OpLoad   = 7'b0000011;
  localparam logic [6:0] OpStore  = 7'b0100011;
  localparam logic [6:0] OpImm    = 7'b0010011;
  localparam logic [6:0] OpReg    = 7'b0110011;
  localparam logic [6:0] OpFence  = 7'b0001111;
  localparam logic [6:0] OpSystem = 7'b1110011;

  logic [6:0]  opcode;
  logic [2:0]  f3;
  logic [6:0]  f7;
  logic [4:0]  rs1;
  logic [11:0] csr;
  logic        csr_writes;
  logic        legal;

  assign opcode = insn_i[6:0];
  assign f3     = insn_i[14:12];
  assign f7     = insn_i[31:25];
  assign rs1    = insn_i[19:15];
  assign csr    = insn_i[31:20];
  // CSRRW/CSRRWI always write; the set/clear forms only with rs1 (uimm) != 0 (ISA 9.1).
  assign csr_writes = (f3[1:0] == 2'b01) || (rs1 != 5'd0);

  always_comb begin : p_decode
    legal         = 1'b0;
    is_lui_o      = 1'b0;
    is_auipc_o    = 1'b0;
    is_jal_o      = 1'b0;
    is_jalr_o     = 1'b0;
    is_branch_o   = 1'b0;
    is_load_o     = 1'b0;
    is_store_o    = 1'b0;
    is_alu_o      = 1'b0;
    is_mul_o      = 1'b0;
    is_div_o      = 1'b0;
    is_ecall_o    = 1'b0;
    is_ebreak_o   = 1'b0;
    is_csr_o      = 1'b0;
    csr_barrier_o = 1'b0;
    imm_o         = {{20{insn_i[31]}}, insn_i[31:20]};  // I-type
    unique case (opcode)
      OpLui: begin
        legal    = 1'b1;
        is_lui_o = 1'b1;
        imm_o    = {insn_i[31:12], 12'd0};
      end
      OpAuipc: begin
        legal      = 1'b1;
        is_auipc_o = 1'b1;
        imm_o      = {insn_i[31:12], 12'd0};
      end
      OpJal: begin
        legal    = 1'b1;
        is_jal_o = 1'b1;
        imm_o    = {{12{insn_i[31]}}, insn_i[19:12], insn_i[20], insn_i[30:21], 1'b0};
      end
      OpJalr: begin
        legal     = (f3 == 3'b000);
        is_jalr_o = legal;
      end
      OpBranch: begin
        legal       = (f3 != 3'b010) && (f3 != 3'b011);
        is_branch_o = legal;
        imm_o       = {{20{insn_i[31]}}, insn_i[7], insn_i[30:25], insn_i[11:8], 1'b0};
      end
      OpLoad: begin
        legal     = (f3 != 3'b011) && (f3 != 3'b110) && (f3 != 3'b111);
        is_load_o = legal;
      end
      OpStore: begin
        legal      = (f3 == 3'b000) || (f3 == 3'b001) || (f3 == 3'b010);
        is_store_o = legal;
        imm_o      = {{20{insn_i[31]}}, insn_i[31:25], insn_i[11:7]};
      end
      OpImm: begin
        if (f3 == 3'b001)      legal = (f7 == 7'h00);
        else if (f3 == 3'b101) legal = (f7 == 7'h00) || (f7 == 7'h20);
        else                   legal = 1'b1;
        is_alu_o = legal;
      end
      OpReg: begin
        if (f7 == 7'h00) begin
          legal    = 1'b1;
          is_alu_o = 1'b1;
        end else if (f7 == 7'h20) begin
          legal    = (f3 == 3'b000) || (f3 == 3'b101);
          is_alu_o = legal;
        end else if (f7 == 7'h01) begin
          legal    = 1'b1;
          is_mul_o = !f3[2];
          is_div_o = f3[2];
        end
      end
      OpFence: legal = (f3 == 3'b000);  // FENCE is a no-op; FENCE.I (Zifencei) is outside RV32IM: illegal
      OpSystem: begin
        if (f3 == 3'b000) begin
          is_ecall_o  = (insn_i == 32'h0000_0073);
          is_ebreak_o = (insn_i == 32'h0010_0073);
          legal       = is_ecall_o || is_ebreak_o;
        end else if (f3 != 3'b100) begin
          if (csr == 12'h8C0) begin
            legal         = 1'b1;
            csr_barrier_o = csr_writes;
          end else if (csr[11:3] == 9'h198) begin  // 0xCC0..0xCC7, read-only
            legal = !csr_writes;
          end
          is_csr_o = legal;
        end
      end
      default: legal = 1'b0;
    endcase
  end

  assign illegal_o   = !legal;
  assign uses_rs1_o  = is_jalr_o || is_branch_o || is_load_o || is_store_o || is_alu_o ||
                       is_mul_o || is_div_o;
  assign uses_rs2_o  = is_branch_o || is_store_o || is_mul_o || is_div_o ||
                       (is_alu_o && opcode == OpReg);
  assign writes_rd_o = is_lui_o || is_auipc_o || is_jal_o || is_jalr_o || is_load_o ||
                       is_alu_o || is_mul_o || is_div_o || is_csr_o;

endmodule
