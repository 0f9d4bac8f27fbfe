# gluoncv_cases.py says `import mxnet`: it runs only in a subprocess under the alias, never
# imported by pytest (--doctest-modules would import it)
collect_ignore = ["gluoncv_cases.py"]
