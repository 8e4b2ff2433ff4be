# Build glue shared by every block: Verilated models, GoogleTest binaries, SV benches.
# Included from the top-level CMakeLists.txt.

set(WEFT_RTL_DIR ${CMAKE_SOURCE_DIR}/rtl)
set(WEFT_LINT_WAIVERS ${CMAKE_SOURCE_DIR}/rtl/weft.vlt)
set(WEFT_WAVE_DIR ${CMAKE_BINARY_DIR}/waves)
set(WEFT_COVERAGE_DIR ${CMAKE_BINARY_DIR}/coverage)
set(WEFT_VECTOR_DIR ${CMAKE_BINARY_DIR}/vectors)
# The simulated board (vl_weft_board, tb/board): its UART bit time in clocks and its memory, shared
# by the model, weft-board-sim (sw/tools) and the uart:// tests (tb/uart).
set(WEFT_BOARD_SIM_CLKS_PER_BIT 8)
set(WEFT_BOARD_SIM_MEM_BYTES 65536)

# Every RTL source comes from the RTL manifest rtl/manifest.toml (docs/rtl-manifest.md), read at
# configure time by scripts/rtl_manifest.py into ${CMAKE_BINARY_DIR}/rtl_manifest.cmake:
#   WEFT_RTL_<FILESET>        each fileset, in order (WEFT_RTL_COMMON, WEFT_RTL_TENSOR, WEFT_RTL_HOST,
#                             WEFT_RTL_DMA, WEFT_RTL_CMD, WEFT_RTL_SIMT, WEFT_RTL_TOP, WEFT_RTL_UART,
#                             WEFT_RTL_PCIE, WEFT_RTL_BOARD)
#   WEFT_RTL_SOURCES_<top>    a top's sources (weft_rtl_sources(<var> <top>)), WEFT_RTL_TOPS the tops
#   WEFT_RTL_INCLUDE_DIRS, WEFT_RTL_HEADERS, WEFT_RTL_DEFINES
# CMake re-runs when the manifest changes or a file appears in (or leaves) a globbed folder.
set(WEFT_RTL_MANIFEST ${CMAKE_SOURCE_DIR}/rtl/manifest.toml)
execute_process(
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/rtl_manifest.py cmake
          ${CMAKE_BINARY_DIR}/rtl_manifest.cmake
  RESULT_VARIABLE weft_manifest_rc ERROR_VARIABLE weft_manifest_err)
if(NOT weft_manifest_rc EQUAL 0)
  message(FATAL_ERROR "rtl/manifest.toml: ${weft_manifest_err}")
endif()
include(${CMAKE_BINARY_DIR}/rtl_manifest.cmake)
# The same as command-line flags (-I<dir> -D<define>) for Verilator and Icarus.
set(weft_incs ${WEFT_RTL_INCLUDE_DIRS})
set(weft_defs ${WEFT_RTL_DEFINES})
list(TRANSFORM weft_incs PREPEND -I)
list(TRANSFORM weft_defs PREPEND -D)
set(WEFT_RTL_DEFINE_FLAGS ${weft_defs})
set(WEFT_RTL_FLAGS ${weft_incs} ${weft_defs})
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${WEFT_RTL_MANIFEST}
                                                               ${CMAKE_SOURCE_DIR}/scripts/rtl_manifest.py)
file(GLOB weft_rtl_globbed CONFIGURE_DEPENDS ${WEFT_RTL_GLOBS})

# weft_rtl_sources(<var> <top>...): the manifest's source list of each <top>, in order, each file
# once.
function(weft_rtl_sources var)
  set(srcs)
  foreach(top IN LISTS ARGN)
    if(NOT DEFINED WEFT_RTL_SOURCES_${top})
      message(FATAL_ERROR "weft_rtl_sources: no top '${top}' in rtl/manifest.toml (tops: ${WEFT_RTL_TOPS})")
    endif()
    list(APPEND srcs ${WEFT_RTL_SOURCES_${top}})
  endforeach()
  list(REMOVE_DUPLICATES srcs)
  set(${var} ${srcs} PARENT_SCOPE)
endfunction()

# weft_verilated_model(<name> TOP <module> [SOURCES <sv...>] [PARAMS Name=Value ...] [ARGS ...])
# Verilates one block configuration into a static library <name> (model class V<name>) that
# any number of test binaries link; without SOURCES, from the manifest's sources of top <module>. One library per configuration: a binary links one model
# (Verilator's DPI exports are global C symbols).
# Mutation testing (scripts/mutate.sh): a file in WEFT_RTL_OVERRIDE_DIR replaces the rtl/ source
# of the same name in every model.
set(WEFT_RTL_OVERRIDE_DIR "" CACHE PATH "Directory of RTL files that replace rtl/ files of the same name")

# The Verilator runtime (verilated.cpp, tracing, DPI, threads), compiled once for every model
# instead of once per model: verilate() adds it to each target, weft_verilated_model takes it out.
set(WEFT_VERILATED_RT_SOURCES
  ${VERILATOR_ROOT}/include/verilated.cpp
  ${VERILATOR_ROOT}/include/verilated_dpi.cpp
  ${VERILATOR_ROOT}/include/verilated_fst_c.cpp
  ${VERILATOR_ROOT}/include/verilated_threads.cpp)
if(WEFT_COVERAGE)
  list(APPEND WEFT_VERILATED_RT_SOURCES ${VERILATOR_ROOT}/include/verilated_cov.cpp)
endif()
add_library(weft_verilated_rt STATIC ${WEFT_VERILATED_RT_SOURCES})
target_include_directories(weft_verilated_rt PUBLIC ${VERILATOR_ROOT}/include
                                                    ${VERILATOR_ROOT}/include/vltstd)
target_compile_definitions(weft_verilated_rt PRIVATE VM_COVERAGE=$<BOOL:${WEFT_COVERAGE}> VM_SC=0
                           VM_TRACE=1 VM_TRACE_VCD=0 VM_TRACE_FST=1)
target_compile_options(weft_verilated_rt PRIVATE -w)
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
target_link_libraries(weft_verilated_rt PUBLIC ZLIB::ZLIB Threads::Threads)
set_target_properties(weft_verilated_rt PROPERTIES POSITION_INDEPENDENT_CODE ON)

# Optimisation of the Verilated C++ (docs/performance.md, "Build time"). The CMake Release default
# (-O3) on every generated file spent most of the build on code that runs once or never:
#   - slow code (__Slow.cpp, __Syms.cpp, __ConstPool: constructors, initial and settle, the trace
#     declarations and first full dump, run once per model) at WEFT_VL_OPT_SLOW, default -O0
#     (Verilator's own make flow: no -O either);
#   - per-cycle trace code (__Trace__<n>.cpp: runs only with --trace / WEFT_TRACE=1 / make wave)
#     at WEFT_VL_OPT_TRACE, default -O1;
#   - the per-cycle code of test-only models at WEFT_VL_OPT_FAST, default -Os (Verilator's own
#     default for it: compiles faster than -O1 and runs about as fast as -O2); the models in
#     WEFT_VL_SPEED_MODELS keep the Release optimisation: the ones the benchmarks time (make bench)
#     and the ones the long system tests simulate.
# Set any of them to "" for the Release flags everywhere.
set(WEFT_VL_OPT_SLOW "-O0" CACHE STRING "Optimisation of Verilated slow code (constructors, settle)")
set(WEFT_VL_OPT_TRACE "-O1" CACHE STRING "Optimisation of Verilated trace code")
set(WEFT_VL_OPT_FAST "-Os" CACHE STRING "Optimisation of the per-cycle code of test-only models")
set(WEFT_VL_SPEED_MODELS
  vl_tu_16x16          # bench_tensor_unit (make bench section 1)
  vl_dma_default       # bench_dma (section 4)
  vl_simt_bench_4x8    # bench_simt (section 5)
  vl_weft_sim_16x16    # sim:// plugin: bench_host (section 4), the Sim system tests
  vl_weft_pcie_16x16   # pcie-sim:// plugin: bench_pcie (section 6), the PcieSim system tests
  vl_weft_board        # uart:// board: the Uart system tests, the longest of make test
  CACHE STRING "Verilated models whose per-cycle code keeps the Release optimisation")

# Compilation units. Verilator writes each model as 10 to 40 .cpp files; compiling each alone
# parses Verilator's headers again every time (about 2 s of CPU: a small model's whole cost), so
# they are compiled in groups, the way Verilator's own make flow compiles its __ALL.cpp (its files
# are written to be included together): a model under WEFT_VL_UNITY_SMALL bytes of C++ is one
# unit at the per-cycle optimisation; a larger one is a unit per kind (per-cycle, slow, trace) and
# at most WEFT_VL_UNITY_BYTES bytes each, so the kinds keep their optimisation levels and the big
# models still compile in parallel. The generated files move to the custom target
# <name>_verilated, which re-runs Verilator when the RTL changes.
set(WEFT_VL_UNITY_SMALL 400000 CACHE STRING "Verilated models below this many bytes of C++: one compilation unit")
set(WEFT_VL_UNITY_BYTES 2000000 CACHE STRING "Bytes of Verilated C++ per compilation unit at most")
function(weft_vl_unity name srcs)
  set(opt_fast ${WEFT_VL_OPT_FAST})
  if(name IN_LIST WEFT_VL_SPEED_MODELS)
    set(opt_fast "")
  endif()
  set(generated)
  set(cpp)
  set(total 0)
  foreach(src IN LISTS srcs)
    if(src MATCHES "\\.cpp$" OR src MATCHES "\\.cmake$")
      list(APPEND generated ${src})
    endif()
    if(src MATCHES "\\.cpp$")
      list(APPEND cpp ${src})
      file(SIZE ${src} size)
      math(EXPR total "${total} + ${size}")
    endif()
  endforeach()
  list(REMOVE_ITEM srcs ${generated})
  add_custom_target(${name}_verilated DEPENDS ${generated})
  add_dependencies(${name} ${name}_verilated)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.units)
  set(units)
  # kind -> list of files, in Verilator's order
  foreach(kind fast slow trace)
    set(files_${kind})
  endforeach()
  foreach(src IN LISTS cpp)
    get_filename_component(base ${src} NAME)
    if(total LESS WEFT_VL_UNITY_SMALL)
      set(kind fast)
    elseif(base MATCHES "__Trace__[0-9]+\\.cpp$")
      set(kind trace)
    elseif(base MATCHES "(__Slow|__Syms|__ConstPool_[0-9]+)\\.cpp$")
      set(kind slow)
    else()
      set(kind fast)
    endif()
    list(APPEND files_${kind} ${src})
  endforeach()
  set(opt_slow ${WEFT_VL_OPT_SLOW})
  set(opt_trace ${WEFT_VL_OPT_TRACE})
  foreach(kind fast slow trace)
    set(n 0)
    set(bytes 0)
    set(content "")
    list(LENGTH files_${kind} left)
    foreach(src IN LISTS files_${kind})
      file(SIZE ${src} size)
      string(APPEND content "#include \"${src}\"\n")
      math(EXPR bytes "${bytes} + ${size}")
      math(EXPR left "${left} - 1")
      if(left EQUAL 0 OR bytes GREATER WEFT_VL_UNITY_BYTES)
        set(unit ${dir}/${kind}_${n}.cpp)
        file(CONFIGURE OUTPUT ${unit} CONTENT
          "// Generated by weft_verilated_model (sim/cmake/weft.cmake): Verilated files of V${name}.\n${content}")
        list(APPEND units ${unit})
        if(opt_${kind})
          set_source_files_properties(${unit} PROPERTIES COMPILE_OPTIONS "${opt_${kind}}")
        endif()
        math(EXPR n "${n} + 1")
        set(bytes 0)
        set(content "")
      endif()
    endforeach()
  endforeach()
  set_property(TARGET ${name} PROPERTY SOURCES ${srcs} ${units})
endfunction()

function(weft_verilated_model name)
  cmake_parse_arguments(M "" "TOP" "SOURCES;PARAMS;ARGS" ${ARGN})
  if(NOT M_SOURCES)
    weft_rtl_sources(M_SOURCES ${M_TOP})
  endif()
  if(WEFT_RTL_OVERRIDE_DIR)
    set(srcs)
    foreach(src IN LISTS M_SOURCES)
      get_filename_component(base ${src} NAME)
      if(EXISTS ${WEFT_RTL_OVERRIDE_DIR}/${base})
        list(APPEND srcs ${WEFT_RTL_OVERRIDE_DIR}/${base})
      else()
        list(APPEND srcs ${src})
      endif()
    endforeach()
    set(M_SOURCES ${srcs})
  endif()
  set(gparams)
  foreach(p IN LISTS M_PARAMS)
    list(APPEND gparams -G${p})
  endforeach()
  set(cov)
  if(WEFT_COVERAGE)
    set(cov COVERAGE)
  endif()
  add_library(${name} STATIC)
  verilate(${name} ${cov} TRACE_FST
    PREFIX V${name}
    TOP_MODULE ${M_TOP}
    SOURCES ${WEFT_LINT_WAIVERS} ${M_SOURCES}
    INCLUDE_DIRS ${WEFT_RTL_INCLUDE_DIRS}
    VERILATOR_ARGS -Wall --assert --x-assign unique --x-initial unique ${WEFT_RTL_DEFINE_FLAGS}
                   ${gparams} ${M_ARGS})
  if(WEFT_COVERAGE)
    # verilate() defines VM_COVERAGE privately; the harness (weft/tb/harness.hpp) needs it too to
    # write each test's coverage data.
    target_compile_definitions(${name} INTERFACE VM_COVERAGE=1)
  endif()
  # The runtime comes from weft_verilated_rt.
  get_target_property(srcs ${name} SOURCES)
  list(FILTER srcs EXCLUDE REGEX "^${VERILATOR_ROOT}/include/")
  set_property(TARGET ${name} PROPERTY SOURCES ${srcs})
  weft_vl_unity(${name} "${srcs}")
  target_link_libraries(${name} PUBLIC weft_verilated_rt)
  # Verilator's generated code is not ours to lint with the project's warnings.
  target_compile_options(${name} PRIVATE -w)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# weft_gtest(<name> SOURCES <cpp...> LIBS <libs...> LABELS <labels...> [DEFS ...])
# The test's own sources compile at WEFT_TEST_OPT (default -O1: GoogleTest-heavy code that drives
# models and libraries compiled with their own optimisation; about 30 % less compile time than -O3).
set(WEFT_TEST_OPT "-O1" CACHE STRING "Optimisation of the GoogleTest binaries' own sources")
function(weft_gtest name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS;DEFS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  if(WEFT_TEST_OPT)
    target_compile_options(${name} PRIVATE ${WEFT_TEST_OPT})
  endif()
  target_link_libraries(${name} PRIVATE weft_tb_main ${T_LIBS})
  target_compile_definitions(${name} PRIVATE ${T_DEFS})
  # Waves, coverage and vectors default to the build tree (compiled into weft_tb), so the
  # binaries behave the same under CTest and run by hand; WEFT_*_DIR variables override.
  # NO_PRETTY_VALUES: a TEST_P's CTest name is its GoogleTest name (Backends/System.Test/Sim, the
  # name generator's), without "  # GetParam() = <the parameter printed>" appended to it.
  # GTEST_SKIP() counts as skipped (CMake sets SKIP_REGULAR_EXPRESSION "[  SKIPPED ]"); make test
  # prints each one's reason in the summary (scripts/ctest_skips.py).
  gtest_discover_tests(${name} NO_PRETTY_VALUES
    PROPERTIES LABELS "${T_LABELS}" TIMEOUT 300 DISCOVERY_TIMEOUT 60)
endfunction()

# weft_python_reference(<target> SCRIPT <script.py> OUT_DIR <dir> OUTPUTS <files in dir...>
#                       [MODULES <scripts/*.py the script imports...>] [SEED <n>] COMMENT <text>):
# runs `python3 <script> --out-dir <dir> [--seed <n>]` at build time (target <target>, part of
# ALL) when the script, a module it imports or the seed changes.
# The reference data of onnxruntime and numpy the tests compare with (scripts/onnx_*.py).
function(weft_python_reference target)
  cmake_parse_arguments(R "" "SCRIPT;OUT_DIR;SEED;COMMENT" "OUTPUTS;MODULES" ${ARGN})
  set(outputs)
  foreach(f IN LISTS R_OUTPUTS)
    list(APPEND outputs ${R_OUT_DIR}/${f})
  endforeach()
  set(seed_args)
  set(seed_dep)
  if(DEFINED R_SEED)
    # A file whose content is the seed (rewritten only when it changes): a new seed regenerates.
    set(seed_dep ${CMAKE_CURRENT_BINARY_DIR}/${target}_seed.txt)
    file(CONFIGURE OUTPUT ${seed_dep} CONTENT "${R_SEED}\n")
    set(seed_args --seed ${R_SEED})
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${Python3_EXECUTABLE} ${R_SCRIPT} --out-dir ${R_OUT_DIR} ${seed_args}
    DEPENDS ${R_SCRIPT} ${R_MODULES} ${seed_dep}
    COMMENT "${R_COMMENT} -> ${R_OUT_DIR}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${outputs})
endfunction()

# ---------------------------------------------------------------------------------------------
# Self-checking SystemVerilog benches (tb/sv) that run on both Icarus and Verilator.
# weft_sv_bench(<name> TOP <bench module> [RTL <manifest top>...] SOURCES <sv...> VECGEN <generator>
#               [PLUSARGS ...]): the RTL tops' manifest sources, then SOURCES (the bench's own).
# - vectors: `weft_vecgen <generator> <dir> <seed>` writes <dir>/*.hex from the golden/reference
#   models (seed: WEFT_VECTOR_SEED, default 1);
# - Icarus: iverilog -g2012 then vvp; Verilator: --binary --timing; both read the same vectors;
# - CTest tests icarus.<name> and verilator.<name> (labels sim, icarus / sim, verilator), which
#   pass when the bench prints "WEFT-BENCH <name> ... errors=0".
set(WEFT_VECTOR_SEED 1 CACHE STRING "Seed of the generated SV bench vectors")
find_program(IVERILOG iverilog REQUIRED)
find_program(VVP vvp REQUIRED)
find_program(VERILATOR_BIN verilator REQUIRED)

function(weft_sv_bench name)
  cmake_parse_arguments(B "" "TOP;VECGEN" "RTL;SOURCES;PLUSARGS" ${ARGN})
  if(B_RTL)
    weft_rtl_sources(rtl ${B_RTL})
    set(B_SOURCES ${rtl} ${B_SOURCES})
  endif()
  set(vdir ${WEFT_VECTOR_DIR}/${name})
  set(bdir ${CMAKE_BINARY_DIR}/sv/${name})
  add_custom_command(OUTPUT ${vdir}/.stamp
    COMMAND ${CMAKE_COMMAND} -E make_directory ${vdir}
    COMMAND $<TARGET_FILE:weft_vecgen> ${B_VECGEN} ${vdir} ${WEFT_VECTOR_SEED}
    COMMAND ${CMAKE_COMMAND} -E touch ${vdir}/.stamp
    DEPENDS weft_vecgen
    COMMENT "Vectors for ${name} (seed ${WEFT_VECTOR_SEED})")
  add_custom_command(OUTPUT ${bdir}/${name}.vvp
    COMMAND ${CMAKE_COMMAND} -E make_directory ${bdir}
    COMMAND ${IVERILOG} -g2012 -Wall ${WEFT_RTL_FLAGS} -s ${B_TOP} -o ${bdir}/${name}.vvp ${B_SOURCES}
    DEPENDS ${B_SOURCES}
    COMMENT "Icarus: ${name}")
  add_custom_command(OUTPUT ${bdir}/verilator/V${name}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${bdir}/verilator
    COMMAND ${VERILATOR_BIN} --binary --timing -Wall --assert --quiet-exit
            ${WEFT_RTL_FLAGS} --top-module ${B_TOP} --Mdir ${bdir}/verilator -o V${name}
            -j 2 ${WEFT_LINT_WAIVERS} ${CMAKE_SOURCE_DIR}/tb/sv/tb.vlt ${B_SOURCES}
    DEPENDS ${B_SOURCES} ${WEFT_LINT_WAIVERS} ${CMAKE_SOURCE_DIR}/tb/sv/tb.vlt
    COMMENT "Verilator (--binary): ${name}"
    VERBATIM)
  add_custom_target(sv_${name} ALL DEPENDS ${vdir}/.stamp ${bdir}/${name}.vvp ${bdir}/verilator/V${name})
  add_test(NAME icarus.${name} COMMAND ${VVP} -n ${bdir}/${name}.vvp +vectors=${vdir} ${B_PLUSARGS})
  add_test(NAME verilator.${name} COMMAND ${bdir}/verilator/V${name} +vectors=${vdir} ${B_PLUSARGS})
  set_tests_properties(icarus.${name} PROPERTIES LABELS "sim;icarus"
    PASS_REGULAR_EXPRESSION "WEFT-BENCH ${name} .*errors=0" FAIL_REGULAR_EXPRESSION "errors=[1-9]|ERROR|FATAL")
  set_tests_properties(verilator.${name} PROPERTIES LABELS "sim;verilator"
    PASS_REGULAR_EXPRESSION "WEFT-BENCH ${name} .*errors=0" FAIL_REGULAR_EXPRESSION "errors=[1-9]|ERROR|FATAL")
endfunction()
