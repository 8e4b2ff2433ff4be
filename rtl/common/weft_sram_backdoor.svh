// weft_sram_backdoor.svh: the DPI back door shared by weft_sram_1rw and weft_sram_1r1w, included
// inside each module under `ifdef VERILATOR (Icarus has no DPI; Yosys must never see it). It
// expects the including module to declare `mem` (StoreW bits per word: the data in
// [Width-1:0], with Ecc the check bits above), Depth, Width, Ecc, CheckW, StoreW and AddrW.
//
// The same export names in both modules (and every parameterisation) are legal in Verilator
// 5.006: a call goes to the instance the current svScope selects (weft::tb::SramBackdoor).
  localparam int BdMaxBits = weft_pkg::SramBdMaxBits;
  localparam int BdBitW    = $clog2(StoreW);
  localparam int BdColW    = weft_ecc_pkg::ColW;
  // The code's columns (weft_ecc_pkg; all zero without Ecc).
  localparam logic [BdColW*weft_ecc_pkg::MaxDataW-1:0] BdCols =
    weft_ecc_pkg::col_table(Ecc ? Width : 0, CheckW);
  if (Width > BdMaxBits) begin : g_bad_bd_width
    `WEFT_ELAB_ERROR("weft_sram: Width exceeds weft_pkg::SramBdMaxBits (back door)")
  end

  export "DPI-C" function weft_sram_bd_write;
  export "DPI-C" function weft_sram_bd_read;
  export "DPI-C" function weft_sram_bd_flip;
  export "DPI-C" function weft_sram_bd_read_check;
  export "DPI-C" function weft_sram_bd_depth;
  export "DPI-C" function weft_sram_bd_width;
  export "DPI-C" function weft_sram_bd_check_bits;
  export "DPI-C" function weft_sram_bd_max_bits;

  // Writes the whole word at addr (bits above Width ignored) and, with Ecc, its check bits
  // (from the columns weft_ecc_enc uses); addresses >= Depth are ignored.
  function automatic void weft_sram_bd_write(input int unsigned addr,
                                             input bit [BdMaxBits-1:0] data);
    logic [StoreW-1:0] w;
    logic [BdColW-1:0] check;
    check = '0;
    for (int i = 0; i < Width; i++) begin
      if (Ecc && data[i]) check = check ^ BdCols[i*BdColW +: BdColW];
    end
    w = StoreW'(data[Width-1:0]) | (StoreW'(check) << Width);
    if (addr < Depth) mem[addr[AddrW-1:0]] = w;
  endfunction

  // Reads the data bits of the word at addr into data[Width-1:0] as stored (not corrected; upper
  // bits zero); zero for addr >= Depth.
  function automatic void weft_sram_bd_read(input int unsigned addr,
                                            output bit [BdMaxBits-1:0] data);
    data = '0;
    if (addr < Depth) data[Width-1:0] = mem[addr[AddrW-1:0]][Width-1:0];
  endfunction

  // Error injection: inverts stored bit `idx` of the word at addr: data bit idx < Width, check
  // bit idx - Width above (Width <= idx < Width + CheckW). Ignored out of range.
  function automatic void weft_sram_bd_flip(input int unsigned addr, input int unsigned idx);
    if (addr < Depth && idx < StoreW) begin
      mem[addr[AddrW-1:0]][idx[BdBitW-1:0]] = ~mem[addr[AddrW-1:0]][idx[BdBitW-1:0]];
    end
  endfunction

  // The check bits stored with the word at addr (0 without Ecc or for addr >= Depth).
  function automatic int unsigned weft_sram_bd_read_check(input int unsigned addr);
    logic [StoreW+31:0] w;
    w = '0;
    if (addr < Depth) w[StoreW-1:0] = mem[addr[AddrW-1:0]];
    return w[Width +: 32];
  endfunction

  function automatic int unsigned weft_sram_bd_depth();
    return Depth;
  endfunction

  // Data bits per word.
  function automatic int unsigned weft_sram_bd_width();
    return Width;
  endfunction

  // Check bits per word (0 without Ecc).
  function automatic int unsigned weft_sram_bd_check_bits();
    return CheckW;
  endfunction

  // The data argument width, so the C++ side can check it agrees with its own buffer size.
  function automatic int unsigned weft_sram_bd_max_bits();
    return BdMaxBits;
  endfunction
