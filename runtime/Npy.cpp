//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//

#include "Npy.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>

using namespace tfm::runtime;

const char *tfm::runtime::dtypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "float32";
  case DType::F16:
    return "float16";
  case DType::F64:
    return "float64";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::B1:
    return "bool";
  case DType::BF16:
    return "bfloat16 (as uint16)";
  }
  return "?";
}

size_t tfm::runtime::dtypeSize(DType type) {
  switch (type) {
  case DType::B1:
    return 1;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  }
  return 0;
}

bool tfm::runtime::parseDTypeName(const std::string &name, DType &type) {
  if (name == "f32")
    type = DType::F32;
  else if (name == "f16")
    type = DType::F16;
  else if (name == "f64")
    type = DType::F64;
  else if (name == "i32")
    type = DType::I32;
  else if (name == "i64")
    type = DType::I64;
  else if (name == "b1")
    type = DType::B1;
  else if (name == "bf16")
    type = DType::BF16;
  else
    return false;
  return true;
}

int64_t Array::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string tfm::runtime::shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// The NumPy type descriptor of `type`.
static const char *dtypeDescr(DType type) {
  switch (type) {
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::F64:
    return "<f8";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::B1:
    return "|b1";
  case DType::BF16:
    return "<u2";
  }
  return "?";
}

/// Maps a NumPy type descriptor to a DType; `ok` is false for the others.
static bool parseDescr(const std::string &descr, DType &type) {
  if (descr == "<f4")
    type = DType::F32;
  else if (descr == "<f2")
    type = DType::F16;
  else if (descr == "<f8")
    type = DType::F64;
  else if (descr == "<i4")
    type = DType::I32;
  else if (descr == "<i8")
    type = DType::I64;
  else if (descr == "|b1")
    type = DType::B1;
  else if (descr == "<u2")
    type = DType::BF16;
  else
    return false;
  return true;
}

/// Returns the value that follows `'key':` in a .npy header dictionary, up
/// to the next top-level comma or the closing brace.
static bool findHeaderValue(const std::string &header, const std::string &key,
                            std::string &value) {
  size_t pos = header.find("'" + key + "'");
  if (pos == std::string::npos)
    return false;
  pos = header.find(':', pos);
  if (pos == std::string::npos)
    return false;
  ++pos;
  while (pos < header.size() && header[pos] == ' ')
    ++pos;
  size_t end = pos;
  int depth = 0;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  value = header.substr(pos, end - pos);
  return true;
}

/// Parses a shape tuple such as "(2, 10, 32)", "(7,)" or "()".
static bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return false;
  std::string inner = text.substr(1, text.size() - 2);
  std::stringstream stream(inner);
  std::string item;
  while (std::getline(stream, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos)
      continue; // the trailing comma of a 1-tuple
    size_t e = item.find_last_not_of(' ');
    item = item.substr(b, e - b + 1);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
      return false;
    if (item.size() > 15)
      return false;
    shape.push_back(std::stoll(item));
  }
  return true;
}

/// Reads up to `count` more bytes of `file` into `bytes`; false if the
/// stream fails before the end of the file. Reads in chunks, so that what a
/// header announces is never allocated beyond what the file holds. Throws
/// std::bad_alloc when memory runs out.
template <typename Bytes>
static bool readMore(std::ifstream &file, Bytes &bytes, size_t count) {
  constexpr size_t kChunk = size_t(64) << 20;
  while (count > 0) {
    size_t old = bytes.size(), step = std::min(count, kChunk);
    bytes.resize(old + step);
    file.read(reinterpret_cast<char *>(&bytes[old]),
              static_cast<std::streamsize>(step));
    size_t got = static_cast<size_t>(file.gcount());
    bytes.resize(old + got);
    if (file.bad())
      return false;
    if (got < step)
      break; // the end of the file
    count -= step;
  }
  return true;
}

/// The longest header tfm reads. NumPy writes headers of a few dozen bytes
/// (and refuses to read more than 10000 by default).
constexpr size_t kMaxHeaderBytes = size_t(1) << 20;

static bool readNpyFile(const std::string &path, Array &array,
                        std::string &error, bool *outOfMemory) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(info.st_mode)) {
    error = "'" + path + "' is a directory, not a .npy file";
    return false;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open '" + path + "'";
    return false;
  }
  // The magic and the header's length first: a file that is not a .npy
  // (or /dev/zero) is rejected before anything else is read.
  std::string bytes;
  if (!readMore(file, bytes, 12)) {
    error = "cannot read '" + path + "'";
    return false;
  }
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    error = "'" + path + "' is not a .npy file (bad magic)";
    return false;
  }
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) |
                static_cast<unsigned char>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = "'" + path + "' is truncated in its header";
      return false;
    }
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    error = "'" + path + "' has unsupported .npy version " +
            std::to_string(major);
    return false;
  }
  // Checked before anything more is read or allocated.
  if (headerLen > kMaxHeaderBytes) {
    error = "'" + path + "' has a header of " + std::to_string(headerLen) +
            " bytes; a .npy header is at most " +
            std::to_string(kMaxHeaderBytes);
    return false;
  }
  bool regular = S_ISREG(info.st_mode);
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);
  if (regular && headerStart + headerLen > fileSize) {
    error = "'" + path + "' is truncated in its header (it claims " +
            std::to_string(headerLen) + " bytes)";
    return false;
  }
  if (headerStart + headerLen > bytes.size() &&
      !readMore(file, bytes, headerStart + headerLen - bytes.size())) {
    error = "cannot read '" + path + "'";
    return false;
  }
  if (headerStart + headerLen > bytes.size()) {
    error = "'" + path + "' is truncated in its header";
    return false;
  }
  std::string header = bytes.substr(headerStart, headerLen);

  std::string descr, fortran, shapeText;
  if (!findHeaderValue(header, "descr", descr) ||
      !findHeaderValue(header, "fortran_order", fortran) ||
      !findHeaderValue(header, "shape", shapeText)) {
    error = "'" + path + "' has a malformed .npy header";
    return false;
  }
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"'))
    descr = descr.substr(1, descr.size() - 2);
  if (!parseDescr(descr, array.dtype)) {
    error = "'" + path + "' holds elements of type '" + descr +
            "', which tfm does not read (little-endian float32, float16, "
            "float64, int32 or int64, bool, or uint16 for bfloat16)";
    return false;
  }
  if (fortran.compare(0, 4, "True") == 0) {
    error = "'" + path + "' is in Fortran order; save it in C order";
    return false;
  }
  array.shape.clear();
  if (!parseShape(shapeText, array.shape)) {
    error = "'" + path + "' has a malformed shape " + shapeText;
    return false;
  }

  // The data's size, checked for overflow: a shape whose size does not
  // fit in memory is an error, not a wrapped-around small number.
  size_t dataStart = headerStart + headerLen;
  uint64_t expected = dtypeSize(array.dtype);
  for (int64_t d : array.shape) {
    if (d != 0 && expected > (uint64_t(1) << 48) / uint64_t(d)) {
      error = "'" + path + "' has the shape " + shapeToString(array.shape) +
              ", too large to hold in memory";
      return false;
    }
    expected *= uint64_t(d);
  }
  if (regular && fileSize - dataStart != expected) {
    bool longer = fileSize - dataStart > expected;
    error = "'" + path + "' should hold " + std::to_string(expected) +
            " bytes of data for shape " + shapeToString(array.shape) +
            (longer ? ", found more"
                    : ", found " + std::to_string(fileSize - dataStart) +
                          " (truncated)");
    return false;
  }
  // Read what the header announces, and one byte more to see whether the
  // file is longer, straight into the array (no second copy). A regular
  // file's size is known to match: its data is allocated at once.
  try {
    array.data.clear();
    if (regular)
      array.data.reserve(expected + 1);
    if (bytes.size() > dataStart)
      array.data.assign(bytes.begin() + dataStart, bytes.end());
    size_t have = array.data.size();
    if (have < expected + 1 &&
        !readMore(file, array.data, size_t(expected + 1 - have))) {
      error = "cannot read '" + path + "'";
      return false;
    }
  } catch (const std::bad_alloc &) {
    array.data = std::vector<uint8_t>();
    error = "cannot allocate " + std::to_string(expected) +
            " bytes for the data of '" + path + "' (shape " +
            shapeToString(array.shape) + ")";
    if (outOfMemory)
      *outOfMemory = true;
    return false;
  }
  size_t found = array.data.size();
  if (found != expected) {
    bool longer = found > expected;
    error = "'" + path + "' should hold " + std::to_string(expected) +
            " bytes of data for shape " + shapeToString(array.shape) +
            (longer ? ", found more"
                    : ", found " + std::to_string(found) + " (truncated)");
    array.data = std::vector<uint8_t>();
    return false;
  }
  if (array.dtype == DType::B1)
    for (uint8_t &b : array.data)
      b = b != 0;
  return true;
}

bool tfm::runtime::readNpy(const std::string &path, Array &array,
                           std::string &error, bool *outOfMemory) {
  if (outOfMemory)
    *outOfMemory = false;
  try {
    return readNpyFile(path, array, error, outOfMemory);
  } catch (const std::bad_alloc &) {
    // The header and the messages are small; this is memory that ran out
    // almost entirely.
    array.data = std::vector<uint8_t>();
    error = "cannot allocate memory to read '" + path + "'";
    if (outOfMemory)
      *outOfMemory = true;
    return false;
  }
}

bool tfm::runtime::writeNpy(const std::string &path, const Array &array,
                            std::string &error) {
  std::string shape = "(";
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ", ";
  if (array.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (array.shape.size() == 1)
    shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = std::string("{'descr': '") +
                       dtypeDescr(array.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::ofstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot write '" + path + "'";
    return false;
  }
  uint16_t len = static_cast<uint16_t>(header.size());
  file.write("\x93NUMPY\x01\x00", 8);
  char lenBytes[2] = {static_cast<char>(len & 0xff),
                      static_cast<char>(len >> 8)};
  file.write(lenBytes, 2);
  file << header;
  file.write(reinterpret_cast<const char *>(array.data.data()),
             array.data.size());
  // Buffered writes fail at the latest when the file is closed (a full
  // disk, /dev/full): the output is written only if the close succeeds.
  file.close();
  if (!file) {
    error = "cannot write '" + path + "' (" + std::strerror(errno) + ")";
    return false;
  }
  return true;
}
