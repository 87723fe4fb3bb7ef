#!/bin/bash
# A fork bomb: every process starts two more. Only for the --max-processes test.
bomb() { bomb | bomb & }
bomb
sleep 30
