// weft_sram_backdoor.svh: the DPI back door shared by weft_sram_1rw and weft_sram_1r1w, included
// inside each module under `ifdef VERILATOR (Icarus has no DPI; Yosys must never see it). It
// expects the including module to declare `mem`, Depth, Width and AddrW.
//
// The same export names in both modules (and every parameterisation) are legal in Verilator
// 5.006: a call goes to the instance the current svScope selects (weft::tb::SramBackdoor).
  localparam int BdMaxBits = weft_pkg::SramBdMaxBits;
  if (Width > BdMaxBits) begin : g_bad_bd_width
    `WEFT_ELAB_ERROR("weft_sram: Width exceeds weft_pkg::SramBdMaxBits (back door)")
  end

  export "DPI-C" function weft_sram_bd_write;
  export "DPI-C" function weft_sram_bd_read;
  export "DPI-C" function weft_sram_bd_depth;
  export "DPI-C" function weft_sram_bd_width;
  export "DPI-C" function weft_sram_bd_max_bits;

  // Writes the whole word at addr (bits above Width ignored); addresses >= Depth are ignored.
  function automatic void weft_sram_bd_write(input int unsigned addr,
                                             input bit [BdMaxBits-1:0] data);
    if (addr < Depth) mem[addr[AddrW-1:0]] = data[Width-1:0];
  endfunction

  // Reads the word at addr into data[Width-1:0] (upper bits zero); zero for addr >= Depth.
  function automatic void weft_sram_bd_read(input int unsigned addr,
                                            output bit [BdMaxBits-1:0] data);
    data = '0;
    if (addr < Depth) data[Width-1:0] = mem[addr[AddrW-1:0]];
  endfunction

  function automatic int unsigned weft_sram_bd_depth();
    return Depth;
  endfunction

  function automatic int unsigned weft_sram_bd_width();
    return Width;
  endfunction

  // The data argument width, so the C++ side can check it agrees with its own buffer size.
  function automatic int unsigned weft_sram_bd_max_bits();
    return BdMaxBits;
  endfunction
