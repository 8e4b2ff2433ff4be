// weft_simt_decode: RV32IM + Weft Zicsr instruction decoder of the SIMT core (combinational).
//
// Classifies one instruction word, says which register operands it reads and whether it writes
// rd, and assembles its immediate (ISA v20191213 2.3, Figure 2.4). Everything that
// docs/simt-model.md calls illegal raises dec_o.illegal: unknown opcodes and funct fields,
// bits[1:0] != 11, RV64 shift immediates, FENCE.I, SYSTEM words other than ECALL/EBREAK/CSR*,
// CSRs other than 0xCC0..0xCC7 and 0x8C0, and writes to the read-only 0xCC0..0xCC7.
// Used twice per issue: in the operand-read stage (operands, hazards) and by every lane of the
// execute stage (weft_simt_lane), so the lanes need no decoded bus from the core.
`include "weft_simt_types.svh"

module weft_simt_decode (
  input  logic [31:0]    insn_i,
  output weft_simt_dec_t dec_o
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
    legal     = 1'b0;
    dec_o     = '0;
    dec_o.imm = {{20{insn_i[31]}}, insn_i[31:20]};  // I-type
    unique case (opcode)
      OpLui: begin
        legal        = 1'b1;
        dec_o.is_lui = 1'b1;
        dec_o.imm    = {insn_i[31:12], 12'd0};
      end
      OpAuipc: begin
        legal          = 1'b1;
        dec_o.is_auipc = 1'b1;
        dec_o.imm      = {insn_i[31:12], 12'd0};
      end
      OpJal: begin
        legal        = 1'b1;
        dec_o.is_jal = 1'b1;
        dec_o.imm    = {{12{insn_i[31]}}, insn_i[19:12], insn_i[20], insn_i[30:21], 1'b0};
      end
      OpJalr: begin
        legal         = (f3 == 3'b000);
        dec_o.is_jalr = legal;
      end
      OpBranch: begin
        legal           = (f3 != 3'b010) && (f3 != 3'b011);
        dec_o.is_branch = legal;
        dec_o.imm       = {{20{insn_i[31]}}, insn_i[7], insn_i[30:25], insn_i[11:8], 1'b0};
      end
      OpLoad: begin
        legal         = (f3 != 3'b011) && (f3 != 3'b110) && (f3 != 3'b111);
        dec_o.is_load = legal;
      end
      OpStore: begin
        legal          = (f3 == 3'b000) || (f3 == 3'b001) || (f3 == 3'b010);
        dec_o.is_store = legal;
        dec_o.imm      = {{20{insn_i[31]}}, insn_i[31:25], insn_i[11:7]};
      end
      OpImm: begin
        if (f3 == 3'b001)      legal = (f7 == 7'h00);
        else if (f3 == 3'b101) legal = (f7 == 7'h00) || (f7 == 7'h20);
        else                   legal = 1'b1;
        dec_o.is_alu = legal;
      end
      OpReg: begin
        if (f7 == 7'h00) begin
          legal        = 1'b1;
          dec_o.is_alu = 1'b1;
        end else if (f7 == 7'h20) begin
          legal        = (f3 == 3'b000) || (f3 == 3'b101);
          dec_o.is_alu = legal;
        end else if (f7 == 7'h01) begin
          legal        = 1'b1;
          dec_o.is_mul = !f3[2];
          dec_o.is_div = f3[2];
        end
      end
      OpFence: legal = (f3 == 3'b000);  // FENCE is a no-op; FENCE.I (Zifencei) is outside RV32IM: illegal
      OpSystem: begin
        if (f3 == 3'b000) begin
          dec_o.is_ecall  = (insn_i == 32'h0000_0073);
          dec_o.is_ebreak = (insn_i == 32'h0010_0073);
          legal           = dec_o.is_ecall || dec_o.is_ebreak;
        end else if (f3 != 3'b100) begin
          if (csr == 12'h8C0) begin
            legal             = 1'b1;
            dec_o.csr_barrier = csr_writes;
          end else if (csr[11:3] == 9'h198) begin  // 0xCC0..0xCC7, read-only
            legal = !csr_writes;
          end
          dec_o.is_csr = legal;
        end
      end
      default: legal = 1'b0;
    endcase
    dec_o.illegal  = !legal;
    dec_o.uses_rs1 = dec_o.is_jalr || dec_o.is_branch || dec_o.is_load || dec_o.is_store ||
                      dec_o.is_alu || dec_o.is_mul || dec_o.is_div;
    dec_o.uses_rs2 = dec_o.is_branch || dec_o.is_store || dec_o.is_mul || dec_o.is_div ||
                      (dec_o.is_alu && opcode == OpReg);
    dec_o.writes_rd = dec_o.is_lui || dec_o.is_auipc || dec_o.is_jal || dec_o.is_jalr ||
                      dec_o.is_load || dec_o.is_alu || dec_o.is_mul || dec_o.is_div || dec_o.is_csr;
  end

endmodule
