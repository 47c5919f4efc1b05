import sys

from samples.generate.run import main

sys.exit(main())
