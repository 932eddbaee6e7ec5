# Writes the harness commit into OUT (a header) at build time, and only when
# it changed, so that every build says which commit it was built from — not
# the commit of the day the build tree was configured.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no
  WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit AND DEFINED ENV{VC_GIT_COMMIT})
  # a source tree without .git (an image build): the commit it was taken from
  set(commit "$ENV{VC_GIT_COMMIT}")
elseif(NOT commit)
  set(commit "unknown")
elseif(dirty)
  set(commit "${commit}+changes")
endif()
set(text "#define VC_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
