# mxnet_check.py runs only under real MXNet, as a script (test_golden_amp.py starts it); it is
# never imported by pytest (--doctest-modules would import it)
collect_ignore = ["mxnet_check.py"]
