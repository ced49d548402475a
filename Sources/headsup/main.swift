import HeadsUpCLI
import Logging

LoggingSystem.bootstrap(StreamLogHandler.standardError)
HeadsUpCommand.main()
