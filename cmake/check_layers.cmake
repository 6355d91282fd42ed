# Fails when a source under src/ includes a header of a layer above its own: layers call
# downward only. LAYERS lists the folders from the bottom up; a folder may include its own
# headers and those of any folder listed before it. Input: SRC (the src folder), STAMP
# (written when the check passes, so that the build reruns it only when sources change).
# A block kind's cycle model (src/blocks/<kind>/model*.h, model*.cpp) and its share of the
# controller's schedule (sequencer*.h, sequencer*.cpp) belong to the models layer: they are
# the kind's, and the platform's like every SystemC model.
set(LAYERS core blocks generator compiler models vp flow power sim dse cli)
set(errors "")
list(LENGTH LAYERS count)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  list(GET LAYERS ${i} layer)
  list(SUBLIST LAYERS 0 ${i} below)
  list(APPEND below ${layer})
  file(GLOB_RECURSE files "${SRC}/${layer}/*.h" "${SRC}/${layer}/*.cpp")
  if(layer STREQUAL "models")
    file(GLOB kind_models "${SRC}/blocks/*/model*.h" "${SRC}/blocks/*/model*.cpp" "${SRC}/blocks/*/sequencer*.h"
         "${SRC}/blocks/*/sequencer*.cpp")
    list(APPEND files ${kind_models})
  elseif(layer STREQUAL "blocks")
    list(FILTER files EXCLUDE REGEX "/blocks/[a-z_]+/(model|sequencer)[a-z_]*\\.(h|cpp)$")
  endif()
  foreach(f ${files})
    file(STRINGS ${f} includes REGEX "^#include \"[a-z_]+/")
    foreach(line ${includes})
      string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" target "${line}")
      if(line MATCHES "^#include \"blocks/[a-z_]+/(model|sequencer)[a-z_]*\\.h\"")
        set(target models)
      endif()
      list(FIND LAYERS ${target} known)
      list(FIND below ${target} allowed)
      if(known GREATER -1 AND allowed EQUAL -1)
        file(RELATIVE_PATH rel ${SRC} ${f})
        string(APPEND errors "src/${rel}: ${line} reaches up from layer '${layer}' to layer '${target}'\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(errors)
  message(FATAL_ERROR "layering: a layer includes one above it (order, bottom up: ${LAYERS})\n${errors}")
endif()
file(WRITE ${STAMP} "ok\n")
