"""Writes tfm graphs: the text of `func.func @main` and the functions it calls.

    from tfm_tools.graph import Function, tensor

    t = tensor((4, 8, 16))                     # tensor<4x8x16xf32>
    f = Function("main")
    q, k, v = (f.input(name, t) for name in ("q", "k", "v"))
    o = f.op("tfm.attention", [q, k, v], t, attrs={"causal": True}, name="o")
    f.ret(o, names="o")
    print(f.text())

prints

    func.func @main(
        %q: tensor<4x8x16xf32> {tfm.name = "q"},
        %k: tensor<4x8x16xf32> {tfm.name = "k"},
        %v: tensor<4x8x16xf32> {tfm.name = "v"})
        -> (tensor<4x8x16xf32> {tfm.name = "o"}) {
      %o = tfm.attention %q, %k, %v {causal}
          : (tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>)
             -> tensor<4x8x16xf32>
      return %o : tensor<4x8x16xf32>
    }

`Function.op` writes the form that every tfm op's assembly format follows
(docs/Dialect/TfmDialect.md): the operands, keyword groups such as
`valid_lens(%l)` or `weights(%wq, %wk, %wv, %wo)`, the attribute dictionary,
then the functional type `(operand types) -> result`, or `: result` for the
formats that end in `: type($input)` (same_type) and for arith's elementwise
ops. The few upstream ops with a syntax of their own that the graphs use
(arith.constant, tensor.empty, linalg.softmax, tensor.extract_slice,
tensor.collapse_shape, func.call) have methods of their own. A Module holds
several functions (a @main that calls a private block, say).
"""

import numbers
import re

import numpy as np

_ELEMENTS = {"float32": "f32", "float16": "f16", "float64": "f64",
             "int32": "i32", "int64": "i64", "bool": "i1"}


def element_type(element):
    """The MLIR element type of ELEMENT: a name such as "f32", or a NumPy
    dtype (np.float32 -> "f32")."""
    if isinstance(element, str) and element not in _ELEMENTS:
        return element
    return _ELEMENTS[np.dtype(element).name]


class TensorType:
    """A ranked tensor type: `tensor<2x3xf32>`."""

    def __init__(self, shape, element="f32"):
        self.shape = tuple(int(d) for d in shape)
        self.element = element_type(element)

    def __str__(self):
        return ("tensor<" + "".join(f"{d}x" for d in self.shape)
                + self.element + ">")

    def __repr__(self):
        return f"TensorType({self})"

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


def tensor(shape, element="f32"):
    """tensor(SHAPE, ELEMENT): tensor((2, 3)) is tensor<2x3xf32>."""
    return TensorType(shape, element)


def type_of(array):
    """The tensor type of a NumPy array."""
    return TensorType(np.shape(array), np.asarray(array).dtype)


def f64(value):
    """VALUE as an MLIR float literal (which needs a '.')."""
    text = repr(float(value))
    if "." not in text and "inf" not in text and "nan" not in text:
        text = text.replace("e", ".0e") if "e" in text else text + ".0"
    return text


def enum(attribute, case):
    """An enum attribute: enum("tfm.activation", "gelu") is
    `#tfm.activation<gelu>`."""
    return f"#{attribute}<{case}>"


def attr_dict(attrs):
    """` {a, b = 4 : i64, c = 0.5 : f64}` from {"a": True, "b": 4, "c": 0.5},
    or "" when there is none. True is a unit attribute, None and False leave
    the attribute out, an int is an i64, a float an f64, and a string is
    written as it is (an enum(...), say)."""
    parts = []
    for name, value in (attrs or {}).items():
        if value is None or value is False:
            continue
        if value is True:
            parts.append(name)
        elif isinstance(value, (bool, np.bool_)):
            parts += [name] if value else []
        elif isinstance(value, numbers.Integral):
            parts.append(f"{name} = {int(value)} : i64")
        elif isinstance(value, numbers.Real):
            parts.append(f"{name} = {f64(value)} : f64")
        else:
            parts.append(f"{name} = {value}")
    return " {" + ", ".join(parts) + "}" if parts else ""


class Value:
    """An SSA value of a Function: `%name` of a tensor type."""

    def __init__(self, name, type):
        self.name = name
        self.type = type

    def __str__(self):
        return "%" + self.name

    def __repr__(self):
        return f"Value(%{self.name}: {self.type})"


def _values(values):
    return ", ".join(str(v) for v in values)


def _listed(items, open="", close=""):
    """OPEN "a, b, c" CLOSE as the pieces "OPENa," "b," "cCLOSE", for
    _fill."""
    items = [str(i) for i in items] or [""]
    items[0] = open + items[0]
    items[-1] += close
    return [i + "," for i in items[:-1]] + items[-1:]


def _fill(pieces, first, indent, width=80):
    """PIECES joined by spaces, in lines of at most WIDTH columns (a piece
    longer than that gets a line of its own); FIRST and INDENT start the
    first and the following lines."""
    lines = [first + pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(indent + piece)
    return lines


class Function:
    """A func.func being written: arguments, ops, then ret()."""

    def __init__(self, name="main", private=False, comment=None):
        self.name = name
        self.private = private
        self.comment = comment
        self.args = []          # (Value, attribute text)
        self.body = []          # lines
        self.result_types = None
        self._results = None    # result texts of the signature
        self._names = set()
        self._next = 0

    # Arguments.

    def _define(self, name, type):
        if name is None:
            while str(self._next) in self._names:
                self._next += 1
            name = str(self._next)
        if not re.fullmatch(r"[A-Za-z0-9_$.-]+", name):
            raise ValueError(f"'{name}' is not an SSA name")
        if name in self._names:
            raise ValueError(f"%{name} is defined twice in @{self.name}")
        self._names.add(name)
        return Value(name, type)

    def arg(self, name, type):
        """An argument without attributes (of a private function, say)."""
        value = self._define(name, type)
        self.args.append((value, ""))
        return value

    def input(self, name, type, arg=None):
        """A runtime input: `%ARG: TYPE {tfm.name = "NAME"}` (ARG defaults
        to NAME)."""
        value = self._define(arg or name, type)
        self.args.append((value, f' {{tfm.name = "{name}"}}'))
        return value

    def weight(self, arg, type, name=None):
        """A weight bound at compile time: `%ARG: TYPE {tfm.weight =
        "NAME"}` (NAME defaults to ARG)."""
        value = self._define(arg, type)
        self.args.append((value, f' {{tfm.weight = "{name or arg}"}}'))
        return value

    # Ops.

    def _emit(self, name, type, words, tail):
        """`%NAME = WORDS TAIL` on one line when it fits in 80 columns; else
        WORDS filled into lines, then TAIL (the type) on lines of its own."""
        value = self._define(name, type)
        first = f"  {value} = "
        line = first + " ".join(words + tail)
        if len(line) <= 80:
            self.body.append(line)
        else:
            self.body += _fill(words, first, "      ")
            self.body += _fill(tail, "      ", "         ")
        return value

    def op(self, op, operands=(), result=None, groups=None, attrs=None,
           same_type=False, name=None):
        """`%NAME = OP %a, %b kw(%c, %d) {ATTRS} : (types) -> RESULT`.

        GROUPS maps each keyword to a Value or a list of them, in the order
        of the op's format; a group of None is left out. With SAME_TYPE the
        type is `: RESULT` (RESULT defaults to the first operand's type)."""
        operands = list(operands)
        words = [op] + _listed(operands)
        all_operands = list(operands)
        for keyword, group in (groups or {}).items():
            if group is None:
                continue
            group = [group] if isinstance(group, Value) else list(group)
            words.append(f"{keyword}({_values(group)})")
            all_operands += group
        if attr_dict(attrs):
            words.append(attr_dict(attrs).strip())
        if result is None:
            if not same_type:
                raise ValueError(f"{op}: no result type")
            result = operands[0].type
        if same_type:
            tail = [":", str(result)]
        else:
            tail = [":"] + _listed((v.type for v in all_operands), "(", ")")
            tail.append(f"-> {result}")
        return self._emit(name, result, words, tail)

    def constant(self, value, type, name=None):
        """arith.constant dense<VALUE> : TYPE, a splat."""
        literal = f64(value) if isinstance(value, float) else str(value)
        return self._emit(name, type, ["arith.constant", f"dense<{literal}>"],
                          [":", str(type)])

    def index(self, value, name=None):
        """arith.constant VALUE : index."""
        return self._emit(name, "index", ["arith.constant", str(int(value))],
                          [":", "index"])

    def empty(self, type, name=None):
        """tensor.empty() : TYPE."""
        return self._emit(name, type, ["tensor.empty()"], [":", str(type)])

    def linalg_softmax(self, input, init, dimension, name=None):
        """linalg.softmax of INPUT along DIMENSION into INIT."""
        return self._emit(
            name, init.type,
            ["linalg.softmax", f"dimension({dimension})",
             f"ins({input} : {input.type})", f"outs({init} : {init.type})"],
            [f"-> {init.type}"])

    def extract_slice(self, source, offsets, sizes, strides=None,
                      name=None):
        """tensor.extract_slice SOURCE[OFFSETS] [SIZES] [STRIDES], of the
        type of SIZES (no rank reduction)."""
        strides = strides or [1] * len(sizes)
        result = TensorType(sizes, source.type.element)

        def ints(xs):
            return "[" + ", ".join(str(x) for x in xs) + "]"
        return self._emit(
            name, result,
            ["tensor.extract_slice", f"{source}{ints(offsets)}", ints(sizes),
             ints(strides)],
            [":", str(source.type), "to", str(result)])

    def collapse_shape(self, source, reassociation, name=None):
        """tensor.collapse_shape SOURCE [[0, 1], [2]], each group of
        dimensions of SOURCE becoming one of the result."""
        shape = source.type.shape
        result = TensorType([int(np.prod([shape[i] for i in group]))
                             for group in reassociation], source.type.element)
        groups = ", ".join("[" + ", ".join(map(str, g)) + "]"
                           for g in reassociation)
        return self._emit(
            name, result, ["tensor.collapse_shape", str(source), f"[{groups}]"],
            [":", str(source.type), "into", str(result)])

    def call(self, callee, operands, result=None, name=None):
        """func.call @CALLEE(OPERANDS); RESULT defaults to the result type
        of CALLEE, when it is a Function that has returned."""
        if isinstance(callee, Function):
            if result is None and callee.result_types:
                (result,) = callee.result_types
            callee = callee.name
        if result is None:
            raise ValueError(f"call of @{callee}: no result type")
        tail = [":"] + _listed((v.type for v in operands), "(", ")")
        return self._emit(
            name, result,
            ["func.call"] + _listed(operands, f"@{callee}(", ")"),
            tail + [f"-> {result}"])

    def ret(self, *values, names=None):
        """return VALUES; NAMES (a string for one value, or a list) become
        the results' `tfm.name`s."""
        if isinstance(names, str):
            names = [names]
        if names is not None and len(names) != len(values):
            raise ValueError("one name per result")
        self.result_types = [v.type for v in values]
        self._results = [
            f'{v.type} {{tfm.name = "{names[i]}"}}' if names else
            str(v.type) for i, v in enumerate(values)]
        self.body.append(f"  return {_values(values)} : "
                         f"{', '.join(str(v.type) for v in values)}")

    def text(self):
        """The function's text, comment first."""
        if self._results is None:
            raise ValueError(f"@{self.name} has no return")
        out = []
        if self.comment:
            out += ["// " + line if line else "//"
                    for line in self.comment.split("\n")]
        args = ",\n    ".join(f"{v}: {v.type}{attr}" for v, attr in self.args)
        if len(self._results) == 1 and "{" not in self._results[0]:
            results = self._results[0]
        else:
            results = "(" + ", ".join(self._results) + ")"
        private = "private " if self.private else ""
        out.append(f"func.func {private}@{self.name}("
                   + (f"\n    {args}" if args else "") + ")")
        out.append(f"    -> {results} {{")
        out += self.body
        out.append("}")
        return "\n".join(out) + "\n"


class Module:
    """Several functions in one file, in the order they were added."""

    def __init__(self, comment=None):
        self.comment = comment
        self.functions = []

    def func(self, name="main", private=False, comment=None):
        """A new Function of this module."""
        function = Function(name, private, comment)
        self.functions.append(function)
        return function

    def text(self):
        out = ""
        if self.comment:
            out = "".join("// " + line + "\n" if line else "//\n"
                          for line in self.comment.split("\n"))
        return out + "\n".join(f.text() for f in self.functions)


def signature(text):
    """The tensor types of @main's arguments in the graph TEXT."""
    start = text.index("func.func @main(")
    header = text[start:text.index("->", start)]
    return [TensorType([int(d) for d in dims.split("x") if d], element)
            for dims, element in re.findall(r"tensor<((?:\d+x)*)(\w+)>",
                                            header)]
