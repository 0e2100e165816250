module github.com/mailgun/raymond/v2

go 1.16

require github.com/sirupsen/logrus v1.8.1
