"""`codegen playground`: a local page for a built catalog (its tools as forms, the parser at work
on any model text, each provider's payload, and the executor when handlers are given).

`catalog` loads the generated package and answers the page's questions in JSON; `server` is the
HTTP side (who may ask, how much, for what); `assets/` holds the page itself (HTML, CSS and plain
JavaScript, served from codegen's own files: the page reaches nothing beyond this machine).
"""
