# cmake -DINPUT=file -DOUTPUT=file.inc -P EmbedText.cmake
# Writes INPUT's text as a C++ raw string literal, for #include into an
# initializer: the compiler then carries a file of the source tree (the
# runtime's generation API, which library headers copy) without a second,
# hand-kept copy of it.
file(READ "${INPUT}" text)
file(WRITE "${OUTPUT}.tmp" "R\"tfm_embedded(${text})tfm_embedded\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
