// weft_prop_dma_legal.svh: the DMA check's contract as one function, included inside a module
// (docs/formal.md): the request {addr, row_bytes, rows, stride} may run (verdict ErrNone) iff
// addr and stride are multiples of BB (and, for reads, row_bytes), rows and row_bytes are not 0,
// and the extent's last byte `last = addr + (rows-1)*stride + row_bytes - 1` lies below 2^AddrW
// and, rounded up to its beat (last | (BB-1)), inside a window [base, limit) that allows the
// access: base <= addr and last | (BB-1) < limit (docs/dma.md, "Whole beats"). Computed the
// plain way (a 66-bit product and sums), not as weft_dma_check computes it.
// Needs localparams BB, OffW, AddrW, NumWin in the including module.
function automatic logic weft_dma_legal(input logic [159:0] req, input logic write,
                                        input logic [NumWin*64-1:0] base,
                                        input logic [NumWin*64-1:0] limit,
                                        input logic [NumWin-1:0] perm);
  logic [63:0] addr;
  logic [31:0] row_bytes, rows, stride;
  logic [65:0] last, last_beat;
  logic        ok, in_win;
  {addr, row_bytes, rows, stride} = req;
  last      = 66'(addr) + 66'(rows - 32'd1) * 66'(stride) + 66'(row_bytes) - 66'd1;
  last_beat = last | 66'(BB - 1);
  in_win    = 1'b0;
  for (int w = 0; w < NumWin; w++) begin
    if (perm[w] && addr >= base[w*64 +: 64] && last_beat < 66'(limit[w*64 +: 64])) in_win = 1'b1;
  end
  ok = (addr[OffW-1:0] == '0) && (stride[OffW-1:0] == '0) &&
       (write || row_bytes[OffW-1:0] == '0) && rows != 32'd0 && row_bytes != 32'd0 &&
       (last >> AddrW) == '0 && in_win;
  weft_dma_legal = ok;
endfunction
