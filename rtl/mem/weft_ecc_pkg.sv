// weft_ecc_pkg: the SECDED code of the memories (docs/common.md "ECC"), the one definition that
// the encoder (weft_ecc_enc), the decoder (weft_ecc_dec) and the SRAM back door use.
//
// A Hsiao code (M. Y. Hsiao, "A class of optimal minimum odd-weight-column SEC-DED codes", IBM J.
// Res. Dev. 14(4), 1970): K data bits, R check bits. The parity-check matrix has one column per
// stored bit: check bit j has the unit column e_j; data bit i has column i of col_table, a
// distinct column of odd weight >= 3. Check bit j of a word is the XOR of the data bits whose
// column has bit j set, so the all-zero word has all-zero check bits. On a read, the syndrome
// (check bits recomputed from the data read, XOR the check bits read) is
//   0                                 no error
//   the column of data bit i          data bit i flipped: corrected
//   e_j (weight 1)                    check bit j flipped: corrected (the data is right)
//   even weight, not 0                two bits flipped: detected, not correctable
// Every column has odd weight, so one flip gives an odd syndrome and two an even, non-zero one;
// weft_ecc_dec flags by the parity. Three or more flips are beyond SECDED: odd ones read as a
// (wrong) correction, four may cancel to 0.
//
// Columns are taken in order of weight (all of weight 3, then 5, ...) and, within a weight, in
// increasing value, so the check bits see as few data bits as the code allows. R is the
// smallest with 2^(R-1) - R >= K (the number of odd-weight columns of weight >= 3): K = 32 -> 7,
// 64 -> 8, 128 -> 9, 256 -> 10, 512 -> 11, 1024 -> 12.
//
// Functions only, for constant expressions (one col_table evaluation per module: Yosys evaluates
// constant functions slowly; no `return`, results assigned to the function name).
package weft_ecc_pkg;

  // Widest word with ECC, and the bits of one column in col_table.
  localparam int MaxDataW  = 1024;
  localparam int ColW      = 12;

  // Check bits of a K-bit word: the smallest R >= 2 with 2^(R-1) - R >= K; 0 for K < 1 or
  // K > MaxDataW (callers reject those at elaboration).
  function automatic int check_bits(input int k);
    int r;
    r = 0;
    for (int t = ColW; t >= 2; t--) begin
      if ((1 << (t - 1)) - t >= k) r = t;
    end
    check_bits = (k < 1 || k > MaxDataW) ? 0 : r;
  endfunction

  // The parity-check columns of the data bits of a K-bit word with R check bits: column i in
  // bits [i*ColW +: ColW] (zero above K). Within a weight, each column is the next larger value
  // of that weight (Gosper's next-combination step).
  function automatic logic [ColW*MaxDataW-1:0] col_table(input int k, input int r);
    logic [ColW*MaxDataW-1:0] t, c;
    int v, w, n, low, up;
    t = 0;
    n = 0;
    for (w = 3; w <= ColW; w = w + 2) begin
      v = (1 << w) - 1;
      while (n < k && w <= r && v < (1 << r)) begin
        c = 0;
        c[ColW-1:0] = v[ColW-1:0];
        t   = t | (c << (n * ColW));
        n   = n + 1;
        low = v & -v;
        up  = v + low;
        v   = (((up ^ v) >> 2) / low) | up;
      end
    end
    col_table = t;
  endfunction

endpackage
