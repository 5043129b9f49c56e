"""Every setting: the table (name, default, help), its reading and checking (``config``),
and the parts read on their own (connection guards, mail authentication, lawyers)."""
