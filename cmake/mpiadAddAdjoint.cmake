# mpiad_add_adjoint(<target> SOURCES <file>... [RULES <file>...] [TARGET cpu|cuda])
#
# Compiles each of SOURCES with `mpiad-cc -c` (differentiates its marked functions,
# then compiles the result) and adds the objects to <target>, an executable or library
# made with add_executable()/add_library(). The target's other sources are compiled
# by the project's normal C compiler; do not list SOURCES in add_executable() as well.
#
# Passed to mpiad-cc, through generator expressions: the target's include
# directories, compile definitions and compile options, each with what its link
# dependencies bring (MPI's include directory, for instance); each RULES file
# (--rules); --target=cuda for TARGET cuda. An object is rebuilt when its source,
# a RULES file or mpiad-cc changes (not when a header it includes changes).
#
# Links <target> with mpiad::runtime (TARGET cpu, the default) or
# mpiad::runtime_gpu (TARGET cuda; mpiad must have been built with libmpiad_gpu).
function(mpiad_add_adjoint target)
  cmake_parse_arguments(PARSE_ARGV 1 _mpiad "" "TARGET" "SOURCES;RULES")
  if(_mpiad_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mpiad_add_adjoint: unknown arguments: ${_mpiad_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "mpiad_add_adjoint: '${target}' is not a target "
                        "(create it with add_executable or add_library first)")
  endif()
  if(NOT _mpiad_SOURCES)
    message(FATAL_ERROR "mpiad_add_adjoint(${target}): no SOURCES")
  endif()
  if(NOT _mpiad_TARGET)
    set(_mpiad_TARGET cpu)
  endif()
  if(_mpiad_TARGET STREQUAL "cpu")
    set(_runtime mpiad::runtime)
    set(_target_flag "")
  elseif(_mpiad_TARGET STREQUAL "cuda")
    if(NOT TARGET mpiad::runtime_gpu)
      message(FATAL_ERROR "mpiad_add_adjoint(${target} ... TARGET cuda): this mpiad "
                          "was installed without its GPU runtime (libmpiad_gpu)")
    endif()
    set(_runtime mpiad::runtime_gpu)
    set(_target_flag "--target=cuda")
  else()
    message(FATAL_ERROR "mpiad_add_adjoint(${target}): TARGET must be cpu or cuda, "
                        "not '${_mpiad_TARGET}'")
  endif()

  set(_rules_flags "")
  set(_rules_files "")
  foreach(_rule IN LISTS _mpiad_RULES)
    get_filename_component(_rule "${_rule}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _rules_flags "--rules" "${_rule}")
    list(APPEND _rules_files "${_rule}")
  endforeach()

  # The target's flags, with its link dependencies' usage requirements.
  set(_incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(_defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(_opts "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")

  set(_objdir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.mpiad")
  foreach(_src IN LISTS _mpiad_SOURCES)
    get_filename_component(_abs "${_src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # Keep the source's path below the source (or binary) directory, so that
    # a/loss.c and b/loss.c do not share an object.
    file(RELATIVE_PATH _rel "${CMAKE_CURRENT_SOURCE_DIR}" "${_abs}")
    if(_rel MATCHES "^\\.\\./")
      file(RELATIVE_PATH _rel "${CMAKE_CURRENT_BINARY_DIR}" "${_abs}")
    endif()
    string(REPLACE "../" "__/" _rel "${_rel}")
    set(_obj "${_objdir}/${_rel}.o")
    get_filename_component(_dir "${_obj}" DIRECTORY)
    file(MAKE_DIRECTORY "${_dir}")
    add_custom_command(
      OUTPUT "${_obj}"
      COMMAND mpiad::mpiad-cc ${_target_flag} ${_rules_flags}
              "$<$<BOOL:${_incs}>:-I$<JOIN:${_incs},;-I>>"
              "$<$<BOOL:${_defs}>:-D$<JOIN:${_defs},;-D>>"
              "${_opts}"
              -c "${_abs}" -o "${_obj}"
      DEPENDS "${_abs}" ${_rules_files} "$<TARGET_FILE:mpiad::mpiad-cc>"
      COMMENT "Differentiating and compiling ${_src} (mpiad-cc)"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    set_source_files_properties("${_obj}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    target_sources(${target} PRIVATE "${_obj}")
  endforeach()
  target_link_libraries(${target} PRIVATE ${_runtime})
endfunction()
