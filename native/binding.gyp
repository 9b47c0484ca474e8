{
  "targets": [
    {
      "target_name": "airlock_peercred",
      "sources": ["peercred.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
