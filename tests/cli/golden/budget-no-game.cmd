budget
