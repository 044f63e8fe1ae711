# RESULT,MIN,MAX
terraform import random_integer.port 8080,1024,65535
