// weft_dma_ax: one registered AXI4 address slot (AR or AW) of weft_dma: the ax_* outputs come
// straight from flops. load_i fills the slot with a burst (ID, address, length in beats
// 1..MaxBurst, sent as AXLEN = beats - 1); the slot empties when the burst is accepted.
// free_o: the slot is empty or being accepted this cycle, so load_i may fill it. Every burst is
// INCR of full bus words, normal non-cacheable bufferable, unprivileged non-secure data.

module weft_dma_ax #(
  parameter int  AddrW    = 64,
  parameter int  IdW      = 4,
  parameter int  BusBytes = 16,
  parameter int  MaxBurst = 16,
  localparam int LenW     = $clog2(MaxBurst + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             load_i,
  input  logic [IdW-1:0]   load_id_i,
  input  logic [AddrW-1:0] load_addr_i,
  input  logic [LenW-1:0]  load_len_i,   // beats
  output logic             free_o,
  // AXI4 address channel
  output logic             ax_valid_o,
  input  logic             ax_ready_i,
  output logic [IdW-1:0]   ax_id_o,
  output logic [AddrW-1:0] ax_addr_o,
  output logic [7:0]       ax_len_o,
  output logic [2:0]       ax_size_o,
  output logic [1:0]       ax_burst_o,
  output logic [3:0]       ax_cache_o,
  output logic [2:0]       ax_prot_o
);

  logic             valid_q, valid_d;
  logic [AddrW-1:0] addr_q, addr_d;
  logic [7:0]       len_q, len_d;
  logic [IdW-1:0]   id_q, id_d;

  assign free_o = !valid_q || ax_ready_i;

  always_comb begin : p_next
    valid_d = valid_q && !ax_ready_i;
    addr_d  = addr_q;
    len_d   = len_q;
    id_d    = id_q;
    if (load_i) begin
      valid_d = 1'b1;
      id_d    = load_id_i;
      addr_d  = load_addr_i;
      len_d   = 8'(32'(load_len_i) - 32'd1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      valid_q <= 1'b0;
      addr_q  <= '0;
      len_q   <= '0;
      id_q    <= '0;
    end else begin
      valid_q <= valid_d;
      addr_q  <= addr_d;
      len_q   <= len_d;
      id_q    <= id_d;
    end
  end

  assign ax_valid_o = valid_q;
  assign ax_id_o    = id_q;
  assign ax_addr_o  = addr_q;
  assign ax_len_o   = len_q;
  assign ax_size_o  = 3'($clog2(BusBytes));
  assign ax_burst_o = 2'b01;    // INCR
  assign ax_cache_o = 4'b0011;  // normal, non-cacheable, bufferable
  assign ax_prot_o  = 3'b010;   // unprivileged, non-secure, data

`ifndef SYNTHESIS
  weft_hs_checker #(.Width(IdW + AddrW + 8)) u_ax_check (
    .clk_i,
    .rst_ni,
    .flush_i (1'b0),
    .valid_i (ax_valid_o),
    .ready_i (ax_ready_i),
    .data_i  ({ax_id_o, ax_addr_o, ax_len_o})
  );
`endif

endmodule
