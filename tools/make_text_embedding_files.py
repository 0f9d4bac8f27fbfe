"""Write mxlite/contrib/text/pretrained_files.json: the pre-trained embedding files MXNet 1.9.1
knows (GloVe and fastText) with their SHA-1s and the archives they come in, from real MXNet's
``mxnet.contrib.text._constants`` (facts about published files; mx.contrib.text reads them).

Run under the reference interpreter::

    /tmp/mxref/bin/python tools/make_text_embedding_files.py
"""

from __future__ import annotations

import json
import os

from mxnet.contrib.text import embedding

OUT = os.path.join(
    os.path.dirname(__file__), "..", "mxlite", "contrib", "text", "pretrained_files.json"
)


def main() -> None:
    tables = {}
    for cls in (embedding.GloVe, embedding.FastText):
        tables[cls.__name__.lower()] = {
            # in MXNet's order: get_pretrained_file_names lists them so
            "files": dict(cls.pretrained_file_name_sha1),
            "archives": dict(cls.pretrained_archive_name_sha1),
        }
    with open(OUT, "w") as f:
        json.dump(tables, f, indent=0)
        f.write("\n")
    print(OUT, {k: len(v["files"]) for k, v in tables.items()})


if __name__ == "__main__":
    main()
