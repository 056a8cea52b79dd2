"""Read fastelm's docstrings as they are written: plain numpydoc text, not hand-written reST.

* A module docstring is a summary paragraph and then equations and command lines laid out in
  plain text: the summary is rendered as prose, the rest as a literal block, so its layout
  (aligned equations, indented commands) shows as written.
* In the other docstrings, after numpydoc: ``name_`` (a fitted attribute) outside backticks is
  not a reST link target, and ``|x|`` (a norm or a count) is not a substitution.
* A cross-reference to a fastelm object by another of its names (``fastelm.de_elm.
  select_strategy`` for ``fastelm.select_strategy``; a name relative to the module that defines
  it) resolves to the page that documents the object; one that names nothing stays a warning.
"""
import importlib
import re

from docutils import nodes
from sphinx.util.nodes import make_refnode

_CODE = re.compile(r"(``.*?``|`[^`]*`|\*\*.*?\*\*)")
_TARGET = re.compile(r"(?<![\w\\])([A-Za-z]\w*?)_(?![A-Za-z0-9_\\])")
_BAR = re.compile(r"(?<!\\)\|")


def _escape(line):
    stripped = line.lstrip()
    if stripped.startswith((">>>", "...", "..", ":")):
        return line
    parts = _CODE.split(line)
    for i in range(0, len(parts), 2):
        parts[i] = _BAR.sub(r"\\|", _TARGET.sub(r"\1\\_", parts[i]))
    return "".join(parts)


def process_docstring(app, what, name, obj, options, lines):
    if what == "module":
        text = list(lines)
        blank = next((i for i, line in enumerate(text) if not line.strip()), len(text))
        rest = text[blank:]
        while rest and not rest[0].strip():
            rest.pop(0)
        lines[:] = text[:blank]
        if rest:
            lines += ["", "::", ""] + ["    " + line if line.strip() else "" for line in rest]
        return
    inside_literal = False
    for i, line in enumerate(lines):
        if inside_literal:
            if line.strip() and not line.startswith((" ", "\t")):
                inside_literal = False
            else:
                continue
        if line.rstrip().endswith("::"):
            inside_literal = True
        lines[i] = _escape(line)


def _resolve_object(target, module):
    for path in ((f"{module}.{target}",) if module else ()) + (target,):
        parts = path.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            return obj
    return None


def missing_reference(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    module = node.get("py:module") or ""
    if not (target.startswith("fastelm") or module.startswith("fastelm")):
        return None
    obj = _resolve_object(target, module)
    domain = env.get_domain("py")
    last = target.rsplit(".", 1)[-1]
    candidates = [(fullname, entry) for fullname, entry in domain.objects.items()
                  if fullname.rsplit(".", 1)[-1] == last and not entry.aliased]
    if obj is not None:
        candidates = [(n, e) for n, e in candidates if _resolve_object(n, "") is obj]
    # a name relative to the module that defines it: the one documented object of that name
    if len({id(_resolve_object(n, "")) for n, _ in candidates}) != 1:
        return None
    fullname, entry = candidates[0]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode,
                        fullname)


def setup(app):
    app.connect("autodoc-process-docstring", process_docstring, priority=600)
    app.connect("missing-reference", missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
