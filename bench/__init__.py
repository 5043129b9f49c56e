"""The benchmark harness behind ``hfa bench``.

- harness: runs, medians, the report
- http_paths: submit and status, empty and at scale
- smtp_paths: inbound accepted and recorded, outbound
- memory: idle RSS, idle SMTP connections, a large message under load
- reference: the bare ASGI endpoint and the aiosmtpd sink (own processes)
- procs: child processes on free loopback ports
- drive, loadgen, tools: load with wrk / smtp-source or the built-in generators
- bulk: the fast bulk loader for the scale path
- mail: the submit body and the lawyers' replies
- report: the table
"""
