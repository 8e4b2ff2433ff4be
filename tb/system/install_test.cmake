# Installs Weft from BUILD_DIR into a temporary prefix (as `make install PREFIX=...` does), then
#   1. builds and runs the consumer project in CONSUMER_DIR against it with find_package(weft);
#   2. when CHECK_TOOL is on: runs the installed <prefix>/bin/weft from a temporary directory
#      outside the build tree with a clean environment (env -i: no WEFT_*, no LD_LIBRARY_PATH)
#      and checks that it finds libweft through its RUNPATH, the sim:// plugin in
#      <prefix>/lib/weft and (CHECK_SIMT) the kernel ELFs in <prefix>/share/weft/kernels:
#        weft info --device sim://                          (exit 0, the CAPS line)
#        weft gemm 20 17 33 --check --device sim://         (exit 0, "bit-exact")
#        weft simt vecadd --n 256 --check --device sim://   (exit 0, "bit-exact")
#      LD_DEBUG=libs on the first run shows which libweft.so and plugin the loader took: both
#      must come from the prefix;
#   3. when CHECK_BOARD_SIM is on: <prefix>/bin/weft-board-sim --help runs.
# Run with cmake -P (tb/system/CMakeLists.txt: system.install_find_package, system.install_tool).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed:\n${out}")
endif()

if(NOT CHECK_TOOL)
  if(NOT EXISTS ${prefix}/lib/cmake/weft/weftConfig.cmake AND NOT EXISTS ${prefix}/lib64/cmake/weft/weftConfig.cmake)
    file(GLOB_RECURSE cfg ${prefix}/*weftConfig.cmake)
    if(NOT cfg)
      message(FATAL_ERROR "no weftConfig.cmake under ${prefix}")
    endif()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer configure failed:\n${out}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer build failed:\n${out}")
  endif()
  execute_process(COMMAND ${WORK_DIR}/build/weft_consumer
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer failed (${rc})")
  endif()
  return()
endif()

# ------------------------------------------------------------------ the installed tool
set(weft ${prefix}/bin/weft)
foreach(f ${weft} ${prefix}/${LIBDIR}/libweft.so ${prefix}/${LIBDIR}/weft/weft_sim_16x16.so)
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
if(CHECK_SIMT)
  foreach(k vecadd saxpy relu requant maxpool softmax transpose im2col lut maxpool2d clamp8
            transpose_nd)
    if(NOT EXISTS ${prefix}/share/weft/kernels/${k}.elf)
      message(FATAL_ERROR "not installed: ${prefix}/share/weft/kernels/${k}.elf")
    endif()
  endforeach()
  if(EXISTS ${prefix}/share/weft/kernels/softmax_probe.elf OR EXISTS ${prefix}/share/weft/kernels/exit_codes.elf)
    message(FATAL_ERROR "a test kernel (softmax_probe.elf, exit_codes.elf) was installed")
  endif()
endif()

# A temporary directory outside the build tree as the working directory, and an environment with
# only PATH and HOME (no WEFT_* variables, no LD_LIBRARY_PATH).
string(RANDOM LENGTH 8 tag)
set(cwd /tmp/weft-install-test-${tag})
file(MAKE_DIRECTORY ${cwd})
set(clean_env env -i PATH=/usr/bin:/bin HOME=${cwd})

# run(<name> <regex that must match> [LD_DEBUG] -- <args...>)
function(run_installed name want)
  cmake_parse_arguments(R "LD_DEBUG" "" "" ${ARGN})
  set(extra)
  if(R_LD_DEBUG)
    set(extra LD_DEBUG=libs)
  endif()
  execute_process(COMMAND ${clean_env} ${extra} ${weft} ${R_UNPARSED_ARGUMENTS}
    WORKING_DIRECTORY ${cwd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT R_LD_DEBUG)
    string(REPLACE ";" " " shown "${R_UNPARSED_ARGUMENTS}")
    message("$ weft ${shown}\n${out}${err}")
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "installed weft ${name}: exit ${rc} (want 0)\n${out}\n${err}")
  endif()
  if(NOT "${out}" MATCHES "${want}")
    message(FATAL_ERROR "installed weft ${name}: the output has no '${want}'\n${out}")
  endif()
  set(run_err "${err}" PARENT_SCOPE)
endfunction()

run_installed(info "PERF_MACS" LD_DEBUG info --device sim://)
# The loader's log: libweft and the sim:// plugin came from the prefix, not the build tree.
foreach(lib libweft.so weft_sim_16x16.so)
  string(REGEX MATCH "calling init: [^\n]*/${lib}[^\n]*" init "${run_err}")
  if(NOT init)
    message(FATAL_ERROR "installed weft info: the loader never initialised ${lib}\n${run_err}")
  endif()
  string(FIND "${init}" "${prefix}/" at)
  if(NOT at GREATER -1)
    message(FATAL_ERROR "installed weft took ${lib} from outside ${prefix}: ${init}")
  endif()
  message("loader: ${init}")
endforeach()
run_installed(info "PERF_MACS" info --device sim://)
run_installed(gemm "bit-exact" gemm 20 17 33 --check --device sim://)
if(CHECK_SIMT)
  run_installed(simt "bit-exact" simt vecadd --n 256 --check --device sim://)
endif()
if(CHECK_BOARD_SIM)
  execute_process(COMMAND ${clean_env} ${prefix}/bin/weft-board-sim --help
    WORKING_DIRECTORY ${cwd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT "${out}" MATCHES "uart")
    message(FATAL_ERROR "installed weft-board-sim --help: exit ${rc}\n${out}\n${err}")
  endif()
endif()
file(REMOVE_RECURSE ${cwd})
