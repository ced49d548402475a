import HeadsUpCLI

HeadsUpCommand.main()
