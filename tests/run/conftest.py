# the case files say `import mxnet`: they run only in a subprocess under the alias, never
# imported by pytest (--doctest-modules would import them)
collect_ignore = ["gluoncv_cases.py", "d2l_cases.py", "d2l_book_cases.py"]
