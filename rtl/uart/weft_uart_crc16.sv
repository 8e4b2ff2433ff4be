// weft_uart_crc16: one byte step of CRC-16/CCITT-FALSE (polynomial 0x1021, MSB first, no
// reflection, no final XOR; docs/host-interfaces.md 2.2). Combinational: crc_o is the CRC after
// data_i given the CRC crc_i before it. Start from 0xFFFF; the CRC of ASCII "123456789" is 0x29B1.
// Running the step over a body followed by its CRC (high byte first) leaves 0x0000.
module weft_uart_crc16 (
  input  logic [15:0] crc_i,
  input  logic [7:0]  data_i,
  output logic [15:0] crc_o
);

  always_comb begin
    crc_o = crc_i ^ {data_i, 8'h00};
    for (int i = 0; i < 8; i++) begin
      crc_o = crc_o[15] ? ((crc_o << 1) ^ 16'h1021) : (crc_o << 1);
    end
  end

endmodule
